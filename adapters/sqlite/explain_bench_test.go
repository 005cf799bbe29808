package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// BenchmarkProgramCheck measures what the read tier's second layer (reading
// the compiled program back through EXPLAIN, docs/decisions.md#read-only-mode) adds to small read
// queries. Two stores share one file, one with the check and one without
// (WithoutProgramCheck, export_layers_test.go); every iteration runs the same query on
// both, alternating which goes first, so the ratio comes from one run on
// one warm cache. Metrics: checked_ns and unchecked_ns per query, added_ns,
// and ratio = checked / unchecked.
func BenchmarkProgramCheck(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	open := func(opts sqlite.Options) *sqlite.Store {
		opts.QueryTimeout = 10 * time.Second
		s, err := sqlite.Open(ctx, path, opts)
		require.NoError(b, err)
		b.Cleanup(func() { s.Close() })
		return s
	}
	checked, unchecked := open(sqlite.Options{}), open(sqlite.WithoutProgramCheck(sqlite.Options{}))
	for _, q := range []string{
		"CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT, qty INTEGER, note TEXT)",
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000)
		 INSERT INTO items SELECT x, 'item ' || x, x * 1.25, 'tag' || (x % 7), x % 100, 'a short note about item ' || x FROM c`,
		"CREATE TABLE tags (tag TEXT PRIMARY KEY, label TEXT)",
		"INSERT INTO tags SELECT DISTINCT tag, upper(tag) FROM items",
	} {
		_, err := checked.Write(ctx, domain.WriteRequest{Tier: domain.TierWrite, SQL: q}, func([]string) {}, func([]any) bool { return true })
		require.NoError(b, err, q)
	}
	read := func(s *sqlite.Store, q string) time.Duration {
		start := time.Now()
		err := s.Read(ctx, q, func([]string) {}, func([]any) bool { return true })
		d := time.Since(start)
		require.NoError(b, err, q)
		return d
	}
	queries := []struct{ name, sql string }{
		{"primary_key_lookup", "SELECT * FROM items WHERE id = %d"},
		{"filtered_aggregate", "SELECT tag, count(*), sum(price) FROM items WHERE qty < %d GROUP BY tag"},
		{"join_order_limit", "SELECT i.name, t.label FROM items i JOIN tags t ON t.tag = i.tag WHERE i.id > %d ORDER BY i.price DESC LIMIT 5"},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			var withCheck, withoutCheck time.Duration
			n := 0
			for b.Loop() {
				sql := fmt.Sprintf(q.sql, n%1000+1)
				if n%2 == 0 {
					withCheck += read(checked, sql)
					withoutCheck += read(unchecked, sql)
				} else {
					withoutCheck += read(unchecked, sql)
					withCheck += read(checked, sql)
				}
				n++
			}
			b.ReportMetric(float64(withCheck.Nanoseconds())/float64(n), "checked_ns")
			b.ReportMetric(float64(withoutCheck.Nanoseconds())/float64(n), "unchecked_ns")
			b.ReportMetric(float64((withCheck-withoutCheck).Nanoseconds())/float64(n), "added_ns")
			b.ReportMetric(float64(withCheck)/float64(withoutCheck), "ratio")
		})
	}
}
