package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
)

// TestReadCacheBytesSizesTheReadConnectionsCache: the agent's read
// connections get the page cache asked for, SQLite's default without one,
// and the agent cannot change it.
func TestReadCacheBytesSizesTheReadConnectionsCache(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	for _, c := range []struct {
		bytes int
		want  string
	}{{0, "-2000"}, {8 << 20, "-8192"}, {100, "-1"}} {
		st, err := openTestDB(ctx, path, sqlite.Options{ReadCacheBytes: c.bytes})
		require.NoError(t, err)
		var got []string
		require.NoError(t, st.Read(ctx, "PRAGMA cache_size", func([]string) {}, func(r []any) bool {
			got = append(got, fmt.Sprint(r[0]))
			return true
		}))
		assert.Equal(t, []string{c.want}, got, "ReadCacheBytes %d", c.bytes)
		assert.Error(t, st.Read(ctx, "PRAGMA cache_size = 1000000", func([]string) {}, func([]any) bool { return true }),
			"the agent cannot size the cache")
		require.NoError(t, st.Close())
	}
}
