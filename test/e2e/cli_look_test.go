package e2e_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCLILookingAtAPlainDatabaseChangesNothing runs the built binary's
// reading subcommands on an ordinary SQLite file (the shop.db a person
// explores): each says in one line that it holds no memory, and the file
// and its folder are as they were.
func TestCLILookingAtAPlainDatabaseChangesNothing(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shop.db")
	h, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	_, err = h.Exec("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items(name) VALUES ('chair')")
	require.NoError(t, err)
	require.NoError(t, h.Close())
	before, err := os.ReadFile(db)
	require.NoError(t, err)
	for _, args := range [][]string{{"verify"}, {"resume"}, {"log"}, {"call", "verify_chain"}} {
		out := runBinary(t, nil, append(args, "--db", db)...)
		assert.Equal(t, 1, out.code, "%v", args)
		assert.Empty(t, out.stdout, "%v", args)
		assertOneLine(t, out.stderr, "shop.db holds no memory", "nothing was changed")
	}
	out := runBinary(t, nil, "call", "--db", db, "read_query", `{"query": "SELECT name FROM items"}`)
	assert.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "chair")
	assertOneLine(t, out.stderr, "shop.db holds no memory", "--read-only")
	after, err := os.ReadFile(db)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the database's bytes")
	entries, err := os.ReadDir(filepath.Dir(db))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no -wal, -shm or -journal file, nothing beside it")
}
