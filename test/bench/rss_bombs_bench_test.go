package bench_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// memWide is a SELECT of n text columns of nearly 8 MiB each (the value cap).
func memWide(n int) string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("printf('%%.*c', %d, 'x') AS c%d", 8<<20-1000, i)
	}
	return "SELECT " + strings.Join(cols, ", ")
}

// BenchmarkBombRSS reports the built server's peak resident memory (peak-MB,
// from /proc) under the memory bombs of docs/decisions.md#sqlite-memory, each with default settings:
// rows of 150 and 2000 columns of 8 MB (SQLite's heap limit), 64 concurrent
// reads of a 16 MB row (calls in flight are bounded), and a search over an
// 8 MiB value that matches at every character (ripgrep's output is read in
// bounded memory; regexp2's rune buffer is sized exactly). Budget: 150 MB.
func BenchmarkBombRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("peak RSS is read from /proc, which only Linux has")
	}
	bin := buildBinary(b)
	type bomb struct {
		name string
		args []string
		run  func(b *testing.B, p *e2e.Process)
	}
	read := func(query string) func(*testing.B, *e2e.Process) {
		return func(b *testing.B, p *e2e.Process) {
			harness.Call(b, p.Session, "read_query", map[string]any{"query": query})
		}
	}
	search := func(b *testing.B, p *e2e.Process) {
		harness.Call(b, p.Session, "search_text", map[string]any{"table": "big", "pattern": "."})
	}
	bombs := []bomb{
		{name: "select_1", run: read("SELECT 1")},
		{name: "row_150x8MB", run: read(memWide(150))},
		{name: "row_2000x8MB", run: read(memWide(2000))},
		{name: "concurrent_64x16MB", run: func(b *testing.B, p *e2e.Process) {
			var wg sync.WaitGroup
			for range 64 {
				wg.Go(func() { harness.Call(b, p.Session, "read_query", map[string]any{"query": memWide(2)}) })
			}
			wg.Wait()
		}},
		{name: "search_every_char_regexp2", args: []string{"--rg", "/nonexistent/rg"}, run: search},
	}
	if _, err := exec.LookPath("rg"); err == nil {
		bombs = append(bombs, bomb{name: "search_every_char_ripgrep", run: search})
	}
	for _, c := range bombs {
		b.Run(c.name, func(b *testing.B) {
			p := e2e.Start(b, e2e.Command(bin, append([]string{"--db", filepath.Join(b.TempDir(), "rss.db")}, c.args...)...))
			pid := p.Cmd.Process.Pid
			harness.Call(b, p.Session, "write_query", map[string]any{"query": "CREATE TABLE big (v TEXT)"})
			harness.Call(b, p.Session, "write_query", map[string]any{"query": fmt.Sprintf("INSERT INTO big VALUES (printf('%%.*c', %d, 'a'))", 8<<20-1000)})
			peak := 0
			for b.Loop() {
				e2e.ResetPeak(pid)
				c.run(b, p)
				m, err := e2e.ReadMemory(pid)
				require.NoError(b, err)
				peak = max(peak, m.Peak)
			}
			b.ReportMetric(float64(peak)/1024, "peak-MB")
		})
	}
}
