package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
)

// TestClientInfoReadsMetaAsTheSDKDoes: ClientInfo gives what the SDK's
// req.ClientInfo() gives for every shape of _meta entry, as a client's
// JSON decodes: the plain strings it reads itself, and the others
// (other fields, wrong types, none) it leaves to the SDK.
func TestClientInfoReadsMetaAsTheSDKDoes(t *testing.T) {
	for _, entry := range []string{
		`{"name": "claude", "version": "1.2"}`,
		`{"name": "claude", "version": "1.2", "title": "Claude", "description": "d", "websiteUrl": "https://x"}`,
		`{"name": "claude"}`,
		`{}`,
		`{"name": "claude", "version": 12}`,
		`{"name": "claude", "version": "1", "icons": [{"src": "https://x/i.png"}]}`,
		`{"name": "claude", "version": "1", "other": "kept out"}`,
		`{"name": null, "version": "1"}`,
		`"claude"`,
		`null`,
	} {
		var v any
		require.NoError(t, json.Unmarshal([]byte(entry), &v))
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientInfo: v}}}
		assert.Equal(t, req.ClientInfo(), mcpserver.ClientInfo(req), entry)
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}}
	assert.Nil(t, mcpserver.ClientInfo(req), "no _meta, no session")
}
