package bench_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// BenchmarkSDKFloor is the MCP SDK's own cost for one tools/call over the
// in-memory transports, with a tool that does nothing: the floor under any
// tool's end-to-end figure.
func BenchmarkSDKFloor(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	type in struct {
		Query string `json:"query"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a\n1\n# 1 rows"}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	require.NoError(b, err)
	defer ss.Close()
	cs := harness.Connect(b, ct)
	for b.Loop() {
		harness.Call(b, cs, "noop", map[string]any{"query": "SELECT * FROM items WHERE id = 1"})
	}
}
