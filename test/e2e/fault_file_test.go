package e2e_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goodDB writes a database of a few hundred pages through the server and
// returns its bytes once the server has closed it (everything checkpointed
// into the main file, no -wal left).
func goodDB(t *testing.T) []byte {
	t.Helper()
	db := newDB(t)
	cs := start(t, db).Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body BLOB)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 2000) " +
		"INSERT INTO notes (body) SELECT randomblob(300) FROM c"})
	mustCall(t, cs, "append_event", map[string]any{"content": "seeded"})
	require.NoError(t, cs.Close())
	_, err := os.Stat(db + "-wal")
	require.ErrorIs(t, err, os.ErrNotExist, "a clean close leaves no -wal file")
	data, err := os.ReadFile(db)
	require.NoError(t, err)
	require.Greater(t, len(data), 500_000)
	return data
}

// TestFaultTruncatedFileIsRefusedAtStartup starts the server on a database
// cut short: it refuses with one line naming the file and what to do, exits
// nonzero and leaves the file byte for byte as it was; it never reinitialises
// it. A zero-length file holds nothing to lose: SQLite treats it as a new,
// empty database, and the server bootstraps it like a missing one.
func TestFaultTruncatedFileIsRefusedAtStartup(t *testing.T) {
	t.Parallel()
	good := goodDB(t)
	for _, tc := range []struct {
		name string
		size int
	}{
		{"half", len(good) / 2},
		{"one page", 4096},
		{"100 bytes", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "mem.db")
			cut := good[:tc.size]
			require.NoError(t, os.WriteFile(path, cut, 0o644))

			got := runBinary(t, nil, "--db", path)
			assert.Equal(t, 1, got.code)
			assert.Empty(t, got.stdout)
			assertOneLine(t, got.stderr, "mem.db is not a usable SQLite database", "left it as it is", "restore the newest copy of it from the snapshot folder", "sqlite3 mem.db .recover")
			assert.NotContains(t, got.stderr, dir, "the file's name, not its absolute path")
			t.Logf("stderr: %s", got.stderr)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, string(cut) == string(after), "the file is byte for byte unchanged (%d bytes before, %d after)", len(cut), len(after))
		})
	}
	t.Run("zero length", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "mem.db")
		require.NoError(t, os.WriteFile(path, nil, 0o644))
		cs := start(t, path).Session
		mustCall(t, cs, "append_event", map[string]any{"content": "first event of a fresh database"})
		assert.True(t, verifyChain(t, cs).OK)
		require.NoError(t, cs.Close())
		assert.Equal(t, "ok", integrityCheck(t, path))
	})
}

// TestFaultTruncatedWhileRunning cuts the file in half under a running
// server: calls that touch the lost pages return tool errors that say the
// file is damaged and what to do, the server neither crashes nor stops
// answering, and its stdout stays pure JSON-RPC.
func TestFaultTruncatedWhileRunning(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	s := startRaw(t, "--db", db)
	for _, q := range []string{
		"CREATE TABLE notes (id INTEGER PRIMARY KEY, body BLOB)",
		"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 2000) INSERT INTO notes (body) SELECT randomblob(300) FROM c",
	} {
		out, isErr := s.callTool(t, "write_query", map[string]any{"query": q})
		require.False(t, isErr, out)
	}
	out, isErr := s.callTool(t, "append_event", map[string]any{"content": "before the cut"})
	require.False(t, isErr, out)

	// Everything into the main file, then cut it in half.
	other, err := sql.Open("sqlite", "file:"+db)
	require.NoError(t, err)
	var busy, logFrames, done int
	require.NoError(t, other.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done))
	require.Zero(t, busy, "checkpoint blocked")
	require.NoError(t, other.Close())
	info, err := os.Stat(db)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(db, info.Size()/2))

	var damaged int
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_query", map[string]any{"query": "SELECT count(*), sum(length(body)) FROM notes"}},
		{"write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES (randomblob(300))"}},
		{"append_event", map[string]any{"content": "after the cut"}},
		{"verify_chain", nil},
		{"list_tables", nil},
		{"search_text", map[string]any{"table": "notes", "pattern": "x"}},
		{"checkpoint", map[string]any{"summary": "after the cut"}},
	} {
		out, isErr := s.callTool(t, c.tool, c.args)
		t.Logf("%s -> error=%v: %.300s", c.tool, isErr, out)
		if isErr && strings.Contains(out, "malformed") {
			damaged++
			assert.Contains(t, out, "mem.db is damaged", "%s: %s", c.tool, out)
			assert.Contains(t, out, "snapshot", "%s names the way back: %s", c.tool, out)
		}
		assert.NotContains(t, out, db, "no absolute path")
	}
	assert.Positive(t, damaged, "some call must notice the damage")
	// A destructive statement on the damaged file does not run: its dry run
	// meets the damage first, or, where the pages it reads survived, the
	// snapshot before it is checked and a copy of the damaged file is
	// refused; either way rotation cannot replace good snapshots with
	// damaged ones (which path depends on where the cut fell).
	out, isErr = s.callTool(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id < 10", "reason": "after the cut"})
	assert.True(t, isErr, out)
	assert.Contains(t, out, "mem.db is damaged")
	if !strings.Contains(out, "malformed") {
		assert.Contains(t, out, "the statement was not run")
	}
	out, isErr = s.callTool(t, "snapshot", map[string]any{"reason": "after the cut"})
	assert.True(t, isErr, out)
	assert.Contains(t, out, "no snapshot was written and the older ones were kept")
	entries, err := os.ReadDir(filepath.Join(filepath.Dir(db), "mem.snapshots"))
	if err == nil {
		assert.Empty(t, entries, "no snapshot, no leftover copy")
	}
	r := s.request(t, "tools/list", map[string]any{})
	assert.Nil(t, r.Error, "the server still answers")
	assert.NotContains(t, s.stderr.String(), "panic")
	assert.NotContains(t, s.stderr.String(), "goroutine ")
	checkJSONRPCStream(t, []byte(s.stdout.String()))
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t, 10*time.Second), "a clean exit once stdin closes")
}
