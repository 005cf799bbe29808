package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
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
	path := filepath.Join(b.TempDir(), "cache.db")
	seedStore, err := sqlite.Open(ctx, path, sqlite.Options{})
	require.NoError(b, err)
	_, err = seedStore.Write(ctx, perf2Write(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT, qty INTEGER, note TEXT)`), func([]string) {}, func([]any) bool { return true })
	require.NoError(b, err)
	_, err = seedStore.Write(ctx, perf2Write(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000)
		 INSERT INTO items SELECT x, 'item ' || x, x * 1.25, 'tag' || (x % 7), x % 100, 'a short note about item ' || x FROM c`), func([]string) {}, func([]any) bool { return true })
	require.NoError(b, err)
	require.NoError(b, seedStore.Close())
	for _, cache := range []bool{true, false} {
		st, err := sqlite.Open(ctx, path, sqlite.Options{NoStatementCache: !cache})
		require.NoError(b, err)
		b.Run(fmt.Sprintf("same_sql/cache=%v", cache), func(b *testing.B) {
			for b.Loop() {
				require.NoError(b, st.Read(ctx, "SELECT * FROM items WHERE id = 42", func([]string) {}, func([]any) bool { return true }))
			}
		})
		b.Run(fmt.Sprintf("distinct_sql/cache=%v", cache), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				require.NoError(b, st.Read(ctx, fmt.Sprintf("SELECT * FROM items WHERE id = %d", i%1000+1), func([]string) {}, func([]any) bool { return true }))
			}
		})
		require.NoError(b, st.Close())
	}
}

// perf2Write is an unaudited write-tier request for seeding.
func perf2Write(sql string) domain.WriteRequest {
	return domain.WriteRequest{Tier: domain.TierWrite, SQL: sql}
}
