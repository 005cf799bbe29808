package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// perf3Serve is perfServe with a 4 MiB result cap (as the stdio bench
// starts the binary), so 1000 rows are answered whole.
func perf3Serve(b *testing.B) func(line string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "serve.db")
	db := openSQL(b, path)
	_, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT, qty INTEGER, note TEXT);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000)
		INSERT INTO items SELECT x, 'item ' || x, x * 1.25, 'tag' || (x % 7), x % 100, 'a short note about item ' || x FROM c`)
	require.NoError(b, err)
	require.NoError(b, db.Close())
	lim := domain.DefaultLimits()
	lim.MaxResultBytes = 4 << 20
	srv, _ := harness.Server(b, harness.Config{DBPath: path, Limits: lim})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
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
	_, err = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(b, err)
	return roundTrip
}

// BenchmarkServeRows1000 is a 1000x6-row read_query through Serve, raw
// lines over pipes, no client: the server's side of the stdio figure.
func BenchmarkServeRows1000(b *testing.B) {
	rt := perf3Serve(b)
	b.ReportAllocs()
	for i := 1; b.Loop(); i++ {
		ans := rt(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT * FROM items ORDER BY id","limit":1000}}}`, i))
		if !strings.Contains(ans, "# 1000 rows") || strings.Contains(ans, `"isError":true`) {
			b.Fatalf("unexpected answer: %.300s", ans)
		}
	}
}

// BenchmarkStoreReadRowsCapped is BenchmarkStoreReadRows with the cell cap
// the server runs with (MaxCellChars 2000), so rows are read as read_query
// reads them.
func BenchmarkStoreReadRowsCapped(b *testing.B) {
	ctx := context.Background()
	st := sqlite.NewStatementRunner(perf2Items(b, sqlite.Options{MaxCellChars: domain.DefaultLimits().MaxCellChars}))
	done := perf2CPU(b)
	b.ReportAllocs()
	for b.Loop() {
		var w *domain.TableWriter
		require.NoError(b, st.Read(ctx, "SELECT * FROM items", func(c []string) { w = domain.NewTableWriter(c, 1<<30, 2000) }, func(r []any) bool { return w.Add(r) }))
	}
	done()
}
