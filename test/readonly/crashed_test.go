package readonly_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// A WAL database whose writer crashed leaves its -wal (holding
// transactions) and -shm beside it, with no process holding them: a
// SQLite reader allowed to write -shm rebuilds it there. Read-only mode
// reads such a file with every committed row and changes none of the
// three files: SQLite keeps the rebuilt index in memory. The copy of a
// live writer's three files is that state exactly.
func TestBinaryReadsACrashedWritersFilesAndChangesNone(t *testing.T) {
	live := filepath.Join(t.TempDir(), "live.db")
	writer := linksLiveWriter(t, live)
	dir := filepath.Join(t.TempDir(), folderName)
	path := linksCopy(t, live, dir, "-wal", "-shm")
	before := map[string]fileState{}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		before[suffix] = stateOf(t, path+suffix)
	}

	p := e2e.Start(t, e2e.Command(bin, "--db", path, "--read-only"))
	count := map[string]any{"query": "SELECT count(*) FROM t"}
	assert.Equal(t, "count(*)\n200\n# 1 rows", linksMust(t, p.Session, "read_query", count), "the rows in the -wal file are read")
	linksMust(t, p.Session, "list_tables", nil)
	assert.Equal(t, "count(*)\n200\n# 1 rows", linksMust(t, p.Session, "read_query", count), "again")
	require.NoError(t, p.Session.Close())
	for _, suffix := range []string{"", "-wal", "-shm"} {
		assert.Equal(t, before[suffix], stateOf(t, path+suffix), "shop.db%s: bytes, time, mode and the folder's names", suffix)
	}

	// The live writer's own files, read while it runs: its commits are seen.
	p = e2e.Start(t, e2e.Command(bin, "--db", live, "--read-only"))
	_, err := writer.Exec("INSERT INTO t VALUES (201)")
	require.NoError(t, err)
	assert.Equal(t, "count(*)\n201\n# 1 rows", linksMust(t, p.Session, "read_query", count), "a live writer's commit is seen")
	_, err = writer.Exec("INSERT INTO t VALUES (202)")
	require.NoError(t, err)
	assert.Equal(t, "count(*)\n202\n# 1 rows", linksMust(t, p.Session, "read_query", count), "and the next")
	require.NoError(t, p.Session.Close())
}
