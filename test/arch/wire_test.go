package arch_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// sdkWire is the SDK's JSON-RPC package: its messages, codes, encoder and
// decoder (jsonrpc.EncodeMessage, jsonrpc.DecodeMessage).
const sdkWire = "github.com/modelcontextprotocol/go-sdk/jsonrpc"

// TestOnlyTheWirePackageHandlesJSONRPCBytes keeps the fence around the
// wire layer: adapters/mcpserver/frame is the one production package that
// imports the SDK's jsonrpc package, so nothing else reads, writes or
// builds JSON-RPC messages (the rest of the MCP adapter goes through
// frame's API and the SDK's mcp package), and frame itself depends on no
// package of this module, so the wire layer can be read and tested alone.
func TestOnlyTheWirePackageHandlesJSONRPCBytes(t *testing.T) {
	t.Parallel()
	module, pkgs := listPackages(t)
	wire := module + "/adapters/mcpserver/frame"
	found := false
	for _, p := range pkgs {
		if p.ImportPath == wire {
			found = true
			for _, imp := range p.Imports {
				assert.False(t, strings.HasPrefix(imp, module+"/"), "%s imports %s: the wire layer depends on nothing of this module", wire, imp)
			}
			continue
		}
		for _, imp := range p.Imports {
			assert.NotEqual(t, sdkWire, imp, "%s imports the SDK's jsonrpc package: JSON-RPC bytes are %s's alone; use its API", p.ImportPath, wire)
		}
	}
	assert.True(t, found, "the wire package %s exists", wire)
}
