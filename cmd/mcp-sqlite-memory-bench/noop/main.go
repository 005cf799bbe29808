// Command noop is the do-nothing MCP server the benchmark compares the real
// server with: built from the same SDK, on stdio, offering one read_query
// tool that answers every call with the same one-row CSV text, or, for a
// call with a limit above 1, with the text of the file named by
// MCP_SQLITE_BENCH_NOOP_ANSWER (the bench writes the sqlite3 CLI's answer
// to its 1000-row query there). Its per-call time is the floor under any
// tool server built on this SDK, for a small answer and for a large one.
//
// With -http ADDR it serves the same tool over the SDK's Streamable HTTP
// handler at http://ADDR/mcp instead of stdio: the floor of the HTTP
// figures. That handler keeps sessions, so the SDK's client speaks the
// session era (2025-11-25) with it; with -stateless too it is the SDK's
// stateless handler, the one that serves the 2026-07-28 era the client
// then speaks, as it does with this server.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
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
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: the SDK's stateless handler (protocol 2026-07-28, a temporary session per request)")
	flag.Parse()
	large := "id\n1\n# 1 rows"
	if path := os.Getenv("MCP_SQLITE_BENCH_NOOP_ANSWER"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "noop:", err)
			os.Exit(1)
		}
		large = string(b)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: domain.ToolReadQuery}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		text := "id\n1\n# 1 rows"
		if a.Limit > 1 {
			text = large
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	if *addr != "" {
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: *stateless}))
		fmt.Fprintln(os.Stderr, "noop:", http.ListenAndServe(*addr, mux))
		os.Exit(1)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "noop:", err)
		os.Exit(1)
	}
}
