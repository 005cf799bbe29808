// Command noop is the do-nothing MCP server the benchmark compares the real
// server with: built from the same SDK, on stdio, offering one read_query
// tool that answers every call with the same one-row CSV text. Its per-call
// time is the floor under any tool server built on this SDK.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// args mirror read_query's, so the client sends the same frames to both.
type args struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: domain.ToolReadQuery}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "id\n1\n# 1 rows"}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "noop:", err)
		os.Exit(1)
	}
}
