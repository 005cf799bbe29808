package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
)

func TestMissingTablesReadOnlyChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shop.db")
	h, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = h.Exec("CREATE TABLE Query_Log(x); CREATE TABLE items(id)")
	require.NoError(t, err)
	require.NoError(t, h.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	ro, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	require.NoError(t, err)
	missing, err := ro.MissingTables(ctx, sqlite.ServerTables()...)
	ro.Close()
	require.NoError(t, err)
	assert.Equal(t, []string{"memory_events", "memory_checkpoints"}, missing, "names compare as SQLite compares them, without case")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no -wal, -shm or -journal file")

	rw, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "memory.db"), sqlite.Options{})
	require.NoError(t, err)
	defer rw.Close()
	missing, err = rw.MissingTables(ctx, sqlite.ServerTables()...)
	require.NoError(t, err)
	assert.Empty(t, missing, "bootstrap made every server table")
}
