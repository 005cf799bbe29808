package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// BenchmarkStoreReadCache prices the read tier's statement cache
// (adapters/sqlite/stmtcache.go) at the store, without app or audit: the
// same small query repeated, and a different one each call (always a
// miss), with the cache on and off.
func BenchmarkStoreReadCache(b *testing.B) {
	ctx := context.Background()
	path := perf2Items(b, sqlite.Options{}).Path()
	for _, cache := range []bool{true, false} {
		db, err := sqlite.Open(ctx, path, sqlite.Options{NoStatementCache: !cache})
		require.NoError(b, err)
		st := sqlite.NewStatementRunner(db)
		b.Run(fmt.Sprintf("same_sql/cache=%v", cache), func(b *testing.B) {
			defer perf2CPU(b)()
			for b.Loop() {
				require.NoError(b, st.Read(ctx, "SELECT * FROM items WHERE id = 42", func([]string) {}, func([]any) bool { return true }))
			}
		})
		b.Run(fmt.Sprintf("distinct_sql/cache=%v", cache), func(b *testing.B) {
			defer perf2CPU(b)()
			for i := 0; b.Loop(); i++ {
				require.NoError(b, st.Read(ctx, fmt.Sprintf("SELECT * FROM items WHERE id = %d", i%1000+1), func([]string) {}, func([]any) bool { return true }))
			}
		})
		b.Run(fmt.Sprintf("parallel8_distinct_sql/cache=%v", cache), func(b *testing.B) {
			defer perf2CPU(b)()
			var n atomic.Int64
			b.SetParallelism(4) // 8 callers on 2 cores: the server's default max-concurrent-calls
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := st.Read(ctx, fmt.Sprintf("SELECT * FROM items WHERE id = %d", n.Add(1)%1000+1), func([]string) {}, func([]any) bool { return true }); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		require.NoError(b, db.Close())
	}
}

// perf2Items opens a store on a new file holding items: 1000 rows x 6
// columns, as the other benchmarks' seed makes.
func perf2Items(b *testing.B, opts sqlite.Options) *sqlite.Store {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "items.db"), opts)
	require.NoError(b, err)
	b.Cleanup(func() { st.Close() })
	for _, q := range []string{
		`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT, qty INTEGER, note TEXT)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000)
		 INSERT INTO items SELECT x, 'item ' || x, x * 1.25, 'tag' || (x % 7), x % 100, 'a short note about item ' || x FROM c`,
	} {
		_, err := sqlite.NewStatementRunner(st).Write(ctx, perf2Write(q), func([]string) {}, func([]any) bool { return true })
		require.NoError(b, err)
	}
	return st
}

// perf2Write is an unaudited write-tier request for seeding.
func perf2Write(sql string) domain.WriteRequest {
	return domain.WriteRequest{Tier: domain.TierWrite, SQL: sql}
}

// perf2CPU starts measuring the process's CPU time (user and system); the
// returned func reports it per operation as cpu-ns/op. On a shared machine
// wall time counts the waits for a core; CPU time does not.
func perf2CPU(b *testing.B) func() {
	start := perf2Rusage()
	return func() {
		b.ReportMetric(float64(perf2Rusage()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkStoreReadRows prices reading rows at the store: 1000 rows x 6
// columns rendered to capped CSV.
func BenchmarkStoreReadRows(b *testing.B) {
	ctx := context.Background()
	st := sqlite.NewStatementRunner(perf2Items(b, sqlite.Options{}))
	b.Run("csv_1000x6", func(b *testing.B) {
		done := perf2CPU(b)
		for b.Loop() {
			var w *domain.TableWriter
			require.NoError(b, st.Read(ctx, "SELECT * FROM items", func(c []string) { w = domain.NewTableWriter(c, 1<<30, 2000) }, func(r []any) bool { return w.Add(r) }))
		}
		done()
	})
}

// With MCP_SQLITE_BENCH_MEMSTATUS=1 the package's benchmarks run with
// SQLite's memory accounting and heap limits on, as the server runs them
// (cmd/mcp-sqlite-memory calls LimitHeap); without it they run with the
// driver's default, accounting off. Running both prices the accounting.
func init() {
	if os.Getenv("MCP_SQLITE_BENCH_MEMSTATUS") == "1" {
		hard := int64(domain.DefaultLimits().MaxSQLiteHeapBytes)
		if err := sqlite.LimitHeap(hard, hard/2); err != nil {
			panic(err)
		}
	}
}
