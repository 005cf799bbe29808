package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// perfServe starts the real server's Serve (frame guard, SDK, core, SQLite)
// over pipes, as on stdio, on a database with 1000 items, and returns a
// function that sends one raw JSON-RPC line and reads one answer line. No
// MCP client runs: the figure is the server's side of a round trip.
func perfServe(b *testing.B) func(line string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "serve.db")
	db := openSQL(b, path)
	_, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT, qty INTEGER, note TEXT);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000)
		INSERT INTO items SELECT x, 'item ' || x, x * 1.25, 'tag' || (x % 7), x % 100, 'a short note about item ' || x FROM c`)
	require.NoError(b, err)
	require.NoError(b, db.Close())
	srv, _ := harness.Server(b, harness.Config{DBPath: path})
	return perfPipe(b, func(in io.ReadCloser, out io.WriteCloser) error { return srv.Serve(context.Background(), in, out) })
}

// perfNoop serves the do-nothing tool server of the stdio figures
// (cmd/mcp-sqlite-memory-bench/noop: the SDK's own stdio transport, one
// read_query tool answering a fixed one-row text) over the same pipes as
// perfServe, so both are driven alike.
func perfNoop(b *testing.B) func(line string) string {
	b.Helper()
	type args struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: domain.ToolReadQuery}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "id\n1\n# 1 rows"}}}, nil, nil
	})
	return perfPipe(b, func(in io.ReadCloser, out io.WriteCloser) error {
		return s.Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: out})
	})
}

// perfPipe runs serve on a pair of pipes, does the MCP handshake and
// returns the round trip of one raw line.
func perfPipe(b *testing.B, serve func(in io.ReadCloser, out io.WriteCloser) error) func(line string) string {
	b.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serve(inR, outW); outW.Close() }()
	b.Cleanup(func() { inW.Close(); <-done })
	r := bufio.NewReaderSize(outR, 1<<16)
	roundTrip := func(line string) string {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(b, err)
		ans, err := r.ReadString('\n')
		require.NoError(b, err)
		return ans
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	_, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(b, err)
	return roundTrip
}

// BenchmarkServeRoundTrip is one 1-row read_query through Serve, as a
// client on stdio sends it, a ping for the SDK's floor on the same path,
// and the same read_query line answered by the do-nothing server
// (perfNoop). Run with -benchmem: allocs/op is the server's per-message
// cost; cpu-ns/op is the process's CPU time per call, the client's few
// microseconds included.
func BenchmarkServeRoundTrip(b *testing.B) {
	call := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT * FROM items WHERE id = %d"}}}`, i, i%1000+1)
	}
	rt := perfServe(b)
	b.Run("read_query", func(b *testing.B) {
		b.ReportAllocs()
		defer perf2CPU(b)()
		for i := 1; b.Loop(); i++ {
			ans := rt(call(i))
			if !strings.Contains(ans, "# 1 row") || strings.Contains(ans, `"isError":true`) {
				b.Fatalf("unexpected answer: %s", ans)
			}
		}
	})
	b.Run("ping", func(b *testing.B) {
		b.ReportAllocs()
		defer perf2CPU(b)()
		for i := 1; b.Loop(); i++ {
			rt(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
		}
	})
	noop := perfNoop(b)
	b.Run("noop_read_query", func(b *testing.B) {
		b.ReportAllocs()
		defer perf2CPU(b)()
		for i := 1; b.Loop(); i++ {
			if ans := noop(call(i)); !strings.Contains(ans, "# 1 rows") {
				b.Fatalf("unexpected answer: %s", ans)
			}
		}
	})
}
