package bench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// BenchmarkDestructiveDryRun prices the dry run destructive_query makes
// before its snapshot, which it runs whether or not confirmation is on (a
// statement refused only while it runs must cost no snapshot). Through the
// core (no SDK), on a table of 10,000 rows: the whole call with a snapshot
// and without (--snapshots 0), and the dry run alone (sqlite.ImpactMeter)
// of a statement that deletes nothing and of one that deletes 1,000 rows
// (rolled back). The dry-run rows report x_call and x_nosnap, their ns/op
// over the whole call's, measured in the same run.
func BenchmarkDestructiveDryRun(b *testing.B) {
	ctx := context.Background()
	const none = "DELETE FROM t WHERE id > 1000000"
	const many = "DELETE FROM t WHERE id <= 1000"
	newEnv := func(snapshots int) *harness.Env {
		limits := domain.DefaultLimits()
		limits.Snapshots = snapshots
		env := harness.New(b, harness.Config{Limits: limits})
		env.MustCall(b, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)"})
		env.MustCall(b, "write_query", map[string]any{"query": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 10000) INSERT INTO t SELECT i, printf('row %d of the bench table', i) FROM n"})
		return env
	}
	per := map[string]float64{}
	call := func(name string, snapshots int) {
		b.Run(name, func(b *testing.B) {
			env := newEnv(snapshots)
			for b.Loop() {
				out, err := text(env.Tools.DestructiveQuery(ctx, domain.DestructiveQueryRequest{Query: none, Reason: "bench"}))
				require.NoError(b, err)
				if !strings.HasPrefix(out, "ok") {
					b.Fatal(out)
				}
			}
			per[name] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	}
	call("call", 3)
	call("call_no_snapshots", 0)
	for _, q := range []struct{ name, sql string }{{"dry_run_no_rows", none}, {"dry_run_1000_rows", many}} {
		b.Run(q.name, func(b *testing.B) {
			env := newEnv(0)
			m := sqlite.NewImpactMeter(env.Store)
			for b.Loop() {
				if _, err := m.Measure(ctx, domain.TierDestructive, q.sql); err != nil {
					b.Fatal(err)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if c := per["call"]; c > 0 {
				b.ReportMetric(ns/c, "x_call")
			}
			if c := per["call_no_snapshots"]; c > 0 {
				b.ReportMetric(ns/c, "x_nosnap")
			}
		})
	}
}
