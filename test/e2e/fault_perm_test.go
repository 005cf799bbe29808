//go:build unix

package e2e_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// startUnprivileged starts the binary on db (in a folder of its own) as a
// user the permission bits bind (see [e2e.Unprivileged]), with db's folder
// writable for that user.
func startUnprivileged(t *testing.T, db string, args ...string) *e2e.Process {
	t.Helper()
	cmd := e2e.Command(bin, append([]string{"--db", db}, args...)...)
	dir := filepath.Dir(db)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if e2e.Unprivileged(t, cmd, dir) {
		require.NoError(t, os.Chown(dir, e2e.Nobody, e2e.Nobody))
	}
	return e2e.Start(t, cmd)
}

// chmod sets a folder's mode and restores 0755 when the test ends.
func chmod(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.Chmod(dir, mode))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
}

// TestFaultFolderBecomesReadOnly takes write permission away from the
// database's folder, then from the snapshot folder, under a running server:
// destructive_query fails closed naming the snapshot problem and deletes
// nothing, reads go on, writes and appends go on through the open -wal file,
// and once the permission is back everything works and nothing is lost.
func TestFaultFolderBecomesReadOnly(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "data", "mem.db")
	dir, snaps := filepath.Dir(db), filepath.Join(filepath.Dir(db), "mem.snapshots")
	cs := startUnprivileged(t, db).Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('a'), ('b'), ('c'), ('d'), ('e')"})
	mustCall(t, cs, "append_event", map[string]any{"content": "before the lock-down"})
	notes := func() int {
		return count(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM notes"}))
	}

	// The database's folder is read-only and the snapshot folder does not
	// exist yet, so it cannot be made.
	chmod(t, dir, 0o555)
	out := mustFail(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "locked down"})
	assert.Contains(t, out, "cannot create the snapshot folder "+snaps+": permission denied")
	assert.Contains(t, out, "the statement was not run")
	assert.Contains(t, out, "--snapshot-dir")
	assert.Equal(t, 5, notes(), "nothing deleted")
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('written in a read-only folder')"})
	mustCall(t, cs, "append_event", map[string]any{"content": "appended in a read-only folder"})
	mustCall(t, cs, "checkpoint", map[string]any{"summary": "checkpointed in a read-only folder"})
	assert.Equal(t, 6, notes())

	require.NoError(t, os.Chmod(dir, 0o755))
	out = mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "unlocked"})
	first := snapshotPath(t, out, "; snapshot: ")
	assert.Equal(t, 5, notes())

	// Now the snapshot folder exists but is read-only.
	chmod(t, snaps, 0o555)
	out = mustFail(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 2", "reason": "locked down"})
	assert.Contains(t, out, "cannot create a file in the snapshot folder "+snaps+": permission denied")
	assert.Contains(t, out, "the statement was not run")
	assert.Equal(t, 5, notes(), "nothing deleted")
	mustCall(t, cs, "append_event", map[string]any{"content": "appended with a read-only snapshot folder"})

	require.NoError(t, os.Chmod(snaps, 0o755))
	out = mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 2", "reason": "unlocked"})
	second := snapshotPath(t, out, "; snapshot: ")
	assert.Equal(t, 4, notes())
	assert.Equal(t, []string{filepath.Base(first), filepath.Base(second)}, finishedSnapshots(snaps))
	assert.Empty(t, partials(snaps))
	assertSnapshotsSound(t, snaps)

	assertChainWithoutGap(t, cs, 5) // three events, the marker and the checkpoint's seal
	assert.Equal(t, "body\nc\nd\ne\nwritten in a read-only folder\n# 4 rows",
		mustCall(t, cs, "read_query", map[string]any{"query": "SELECT body FROM notes ORDER BY id"}))
	require.NoError(t, cs.Close())
	assert.Equal(t, "ok", integrityCheck(t, db))
}
