package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// killWhen SIGKILLs the server once ready reports true (polled every
// millisecond), or fails the test if that never happens within limit.
func killWhen(t *testing.T, p *e2e.Process, limit time.Duration, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ready() {
		if time.Now().After(deadline) {
			require.FailNow(t, "the moment to kill never came", "waited %v", limit)
		}
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, p.Cmd.Process.Kill(), "SIGKILL")
}

// fileSize is the size of path, 0 when it does not exist.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// count runs a single-number query through the server.
func count(t *testing.T, out string) int {
	t.Helper()
	rows := csvRows(t, out)
	require.Len(t, rows, 1, out)
	n, err := strconv.Atoi(rows[0][0])
	require.NoError(t, err, out)
	return n
}

// TestFaultKillDuringWriteTransaction kills the server in the middle of one
// long INSERT ... SELECT (its pages already spilling into the -wal file):
// after a restart the file is sound, the statement left none of its rows,
// everything acknowledged before it is there and the next write works.
func TestFaultKillDuringWriteTransaction(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	p := start(t, db, "--query-timeout", "120")
	cs := p.Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE big (n INTEGER, pad BLOB)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE acked (n INTEGER)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO acked VALUES (1), (2), (3)"})
	for i := range 5 {
		require.Regexp(t, eventAck, mustCall(t, cs, "append_event", map[string]any{"content": fmt.Sprintf("before the kill %d", i)}))
	}
	mustCall(t, cs, "checkpoint", map[string]any{"summary": "acked rows and five events"})

	const total = 50_000_000 // minutes of work: it never finishes before the kill
	walBefore := fileSize(db + "-wal")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = call(cs, "write_query", map[string]any{"query": fmt.Sprintf(
			"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < %d) "+
				"INSERT INTO big (n, pad) SELECT n, zeroblob(200) FROM c", total)})
	}()
	// 16 MiB beyond the earlier writes: the transaction's pages are on disk.
	killWhen(t, p, 60*time.Second, func() bool { return fileSize(db+"-wal") > walBefore+16<<20 })
	<-done
	t.Logf("killed with a %d MiB -wal file", fileSize(db+"-wal")>>20)

	assert.Equal(t, "ok", integrityCheck(t, db))
	survivor := start(t, db).Session
	assert.Equal(t, 0, count(t, mustCall(t, survivor, "read_query", map[string]any{"query": "SELECT count(*) FROM big"})),
		"the killed statement is atomic: none of its rows survive")
	assert.Equal(t, 3, count(t, mustCall(t, survivor, "read_query", map[string]any{"query": "SELECT count(*) FROM acked"})))
	chain := verifyChain(t, survivor)
	assert.True(t, chain.OK, "chain broken at %d: %s", chain.BreakAt, chain.Reason)
	ids, stored := storedEvents(t, survivor)
	assertContiguous(t, ids)
	require.Len(t, ids, 7, "five events, the marker and the checkpoint's seal")
	assert.Equal(t, "before the kill 4", stored[5])
	assert.Equal(t, domain.SealMarkerContent, stored[6])
	assert.Regexp(t, `^checkpoint 1 sealed: sha256 `, stored[7])
	assert.Contains(t, mustCall(t, survivor, "get_resume_context", nil), "acked rows and five events")
	assert.Equal(t, "ok: 1 rows affected (last_insert_rowid=4)",
		mustCall(t, survivor, "write_query", map[string]any{"query": "INSERT INTO acked VALUES (4)"}))
	assert.Regexp(t, `^ok: event 8 appended`, mustCall(t, survivor, "append_event", map[string]any{"content": "after the kill"}))
	require.NoError(t, survivor.Close())
	assert.Equal(t, "ok", integrityCheck(t, db))
}

// seedBig fills table blobs with mib rows of 1 MiB random blobs through the
// server (the test binary's race-instrumented SQLite would take minutes), so
// that copying the database takes a noticeable time.
func seedBig(t *testing.T, cs *mcp.ClientSession, mib int) {
	t.Helper()
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB)"})
	// Ten megabytes per call, so that no call comes near the deadline on
	// a busy machine.
	for left := mib; left > 0; left -= 10 {
		mustCall(t, cs, "write_query", map[string]any{"query": fmt.Sprintf(
			"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < %d) "+
				"INSERT INTO blobs (b) SELECT randomblob(1048576) FROM c", min(left, 10))})
	}
}

// bigIntegrityCheck is [integrityCheck] for files of many megabytes: it asks
// the sqlite3 shell, an engine independent of the server's, because the
// test binary's race-instrumented SQLite needs minutes for them. Without the
// shell (never in CI) it falls back to the slow check.
func bigIntegrityCheck(t *testing.T, path string) string {
	t.Helper()
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		require.Empty(t, os.Getenv("CI"), "CI must provide the sqlite3 shell")
		return integrityCheck(t, path)
	}
	out, err := exec.Command(shell, "-readonly", path, "PRAGMA integrity_check").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.TrimSpace(string(out))
}

// partials lists the temporary snapshot copies (hidden `.partial` files and
// their journals) in dir.
func partials(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".partial") {
			out = append(out, e.Name())
		}
	}
	return out
}

// finishedSnapshots lists the files in dir named like a finished snapshot
// of mem.db.
func finishedSnapshots(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if snapshotName.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestFaultKillDuringSnapshot kills the server while destructive_query's
// snapshot is being copied: the DELETE never ran, nothing looks like a
// finished snapshot unless it is one, the next destructive_query works, and
// the dead process's copy is removed once it is stale, while other
// databases' copies stay.
func TestFaultKillDuringSnapshot(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	const mib = 100
	snaps := filepath.Join(filepath.Dir(db), "mem.snapshots")
	p := start(t, db)
	seedBig(t, p.Session, mib)
	mustCall(t, p.Session, "append_event", map[string]any{"content": "seeded"})
	done := make(chan struct{})
	began := time.Now()
	go func() {
		defer close(done)
		_, _, _ = call(p.Session, "destructive_query", map[string]any{"query": "DELETE FROM blobs", "reason": "interrupted"})
	}()
	var partial string
	killWhen(t, p, 30*time.Second, func() bool {
		for _, name := range partials(snaps) {
			if fileSize(filepath.Join(snaps, name)) > 8<<20 {
				partial = name
				return true
			}
		}
		return false
	})
	<-done
	t.Logf("killed %v after the call, while %s held %d MiB of %d", time.Since(began).Round(time.Millisecond),
		partial, fileSize(filepath.Join(snaps, partial))>>20, mib)

	assert.Equal(t, "ok", bigIntegrityCheck(t, db))
	assert.Empty(t, finishedSnapshots(snaps), "a half-written copy never carries a snapshot's name")
	assert.Contains(t, partials(snaps), partial, "the dead process's copy is left under its temporary name")
	assertSnapshotsSound(t, snaps)

	cs := start(t, db).Session
	assert.Equal(t, mib, count(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM blobs"})),
		"the DELETE never ran")
	// A fresh partial may be another process's copy in progress: it stays.
	// A copy of another database in the same folder stays whatever its age.
	other := filepath.Join(snaps, ".notes.20260101T000000.000Z.db.123.partial")
	require.NoError(t, os.WriteFile(other, []byte("another database's copy"), 0o644))
	out := mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM blobs WHERE id > 100", "reason": "retry"})
	assert.Equal(t, "ok", bigIntegrityCheck(t, snapshotPath(t, out, "; snapshot: ")))
	assert.Contains(t, partials(snaps), partial, "a fresh copy may belong to a live process")

	// Once stale (untouched for over an hour), the next snapshot removes it.
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(snaps, partial), old, old))
	require.NoError(t, os.Chtimes(other, old, old))
	out = mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM blobs WHERE id > 50", "reason": "again"})
	assert.Equal(t, "ok", bigIntegrityCheck(t, snapshotPath(t, out, "; snapshot: ")))
	assert.Equal(t, []string{filepath.Base(other)}, partials(snaps), "only this database's stale copy is removed")
	assert.Len(t, finishedSnapshots(snaps), 2)
	assertSnapshotsSound(t, snaps)
	assert.Equal(t, 50, count(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM blobs"})))
	chain := verifyChain(t, cs)
	assert.True(t, chain.OK)
	assert.Equal(t, 1, chain.Events)
}

// assertSnapshotsSound opens every finished-name snapshot in dir and checks
// that it passes integrity_check.
func assertSnapshotsSound(t *testing.T, dir string) {
	t.Helper()
	for _, name := range finishedSnapshots(dir) {
		assert.Equal(t, "ok", bigIntegrityCheck(t, filepath.Join(dir, name)), name)
	}
}
