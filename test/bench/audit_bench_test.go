package bench_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// BenchmarkAuditCommit prices the audit contract (every answer only after
// its query_log row is committed): a small read_query through the core
// (app and adapters, no MCP SDK) without and with its row, the row's
// commit alone, and both with 8 overlapping callers per core, where rows
// are group-committed (one transaction per batch).
func BenchmarkAuditCommit(b *testing.B) {
	env := harness.New(b, harness.Config{})
	seed(b, env, 1000)
	ctx := context.Background()
	query := func(i int64) string { return fmt.Sprintf("SELECT * FROM items WHERE id = %d", i%1000+1) }
	q := "SELECT 1"
	entry := domain.AuditEntry{TS: "2026-12-01T00:00:00.000Z", Session: "bench", Tool: "read_query", Query: &q, OK: true}
	sink := sqlite.NewAuditSink(env.Store)
	b.Run("store_read_no_row", func(b *testing.B) {
		defer perf2CPU(b)()
		for i := int64(0); b.Loop(); i++ {
			require.NoError(b, env.Statements.Read(ctx, query(i), func([]string) {}, func([]any) bool { return true }))
		}
	})
	b.Run("row_commit_serial", func(b *testing.B) {
		defer perf2CPU(b)()
		for b.Loop() {
			require.NoError(b, sink.Record(ctx, entry))
		}
	})
	b.Run("read_query_serial", func(b *testing.B) {
		defer perf2CPU(b)()
		for i := int64(0); b.Loop(); i++ {
			_, err := env.Tools.ReadQuery(ctx, domain.ReadQueryRequest{Query: query(i), Limit: 100})
			require.NoError(b, err)
		}
	})
	b.Run("row_commit_parallel", func(b *testing.B) {
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := sink.Record(ctx, entry); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("read_query_parallel", func(b *testing.B) {
		var n atomic.Int64
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := env.Tools.ReadQuery(ctx, domain.ReadQueryRequest{Query: query(n.Add(1)), Limit: 100}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
