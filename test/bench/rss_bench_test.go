package bench_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// hugeResult is a read whose full result would be 1 GB: a million rows of
// about a kilobyte each. read_query must answer with its first capped page.
const hugeResult = `WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 1000000)
SELECT x, printf('%.*c', 1000, 'y') AS kb FROM r`

// BenchmarkLargeResultRSS reports the built server's peak resident memory
// (peak-MB, from /proc) while it answers a query whose full result would be
// 1 GB (its figure's budget: never past ~100 MB), against the same server answering
// SELECT 1 in the same run.
func BenchmarkLargeResultRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("peak RSS is read from /proc, which only Linux has")
	}
	bin := buildBinary(b)
	for _, c := range []struct{ name, query string }{
		{"select_1", "SELECT 1"},
		{"1GB_result", hugeResult},
		{"1GB_result_sorted", hugeResult + " ORDER BY x DESC"},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := e2e.Start(b, e2e.Command(bin, "--db", filepath.Join(b.TempDir(), "rss.db")))
			pid := p.Cmd.Process.Pid
			args := map[string]any{"query": c.query, "limit": 1000}
			harness.Call(b, p.Session, "read_query", args) // warm: pools open, schema read
			peak := 0
			for b.Loop() {
				e2e.ResetPeak(pid)
				// The sorted read may hit the deadline; either way it must
				// answer, and the memory is what is measured.
				harness.Call(b, p.Session, "read_query", args)
				m, err := e2e.ReadMemory(pid)
				require.NoError(b, err)
				peak = max(peak, m.Peak)
			}
			b.ReportMetric(float64(peak)/1024, "peak-MB")
		})
	}
}
