package undo_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/undo"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

const (
	memTS      = "2026-09-13T10:11:12Z"
	memSession = "20260913T101100Z-3fa9"
)

// undoFixture is a store whose table t lost its rows to a logged
// destructive call, with the snapshot taken before it, and a plain
// connection to the file for changes another program makes.
func undoFixture(t *testing.T) (*sqlite.Store, *sql.DB, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "u.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	t.Cleanup(func() { raw.Close() })
	snap := filepath.Join(dir, "u.snapshots", "u.20260131T120000.000Z.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(snap), 0o755))
	for _, q := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT)",
		"INSERT INTO t VALUES (1, 'one'), (2, 'two')",
		"VACUUM INTO '" + snap + "'",
		"DELETE FROM t",
	} {
		_, err := raw.Exec(q)
		require.NoError(t, err, q)
	}
	_, err = raw.Exec("INSERT INTO query_log (ts, session, tool, query, ok, duration_ms, detail) VALUES ('2026-01-31T12:00:00Z', 's', ?, 'DELETE FROM t', 1, 1, ?)",
		domain.ToolDestructiveQuery, domain.Detail{{Key: "reason", Value: "r"}, {Key: "snapshot", Value: snap}}.String())
	require.NoError(t, err)
	return st, raw, snap
}

func undoPlan(t *testing.T, u *undo.Undoer) domain.UndoPlan {
	t.Helper()
	ctx := context.Background()
	call, err := u.Call(ctx, 0)
	require.NoError(t, err)
	s, a, l, replayErr, err := u.Inspect(ctx, call)
	require.NoError(t, err)
	require.NoError(t, replayErr)
	return domain.PlanUndo(call, s, a, l, true)
}

func undoEvent(id int64, hash string) (domain.Event, error) {
	return domain.NewEvent(id, hash, memTS, memSession, domain.UndoEventKind, "undone")
}

func countRows(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(q).Scan(&n))
	return n
}

// A change to an object the plan touches, made after the plan was shown
// and before the restore took the write lock, is found inside the
// restore's transaction: nothing is written, and a new plan shows it.
func TestUndoerRestoreRefusesWhatChangedSinceThePlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, raw, _ := undoFixture(t)
	u := undo.New(st)
	t.Cleanup(func() { u.Close() })
	plan := undoPlan(t, u)
	require.Len(t, plan.Restore, 1)
	assert.Empty(t, plan.Later)

	_, err := raw.Exec("INSERT INTO t VALUES (7, 'meanwhile')")
	require.NoError(t, err)
	_, err = u.Restore(ctx, plan, undoEvent, nil)
	require.ErrorIs(t, err, domain.ErrConflict)
	assert.Equal(t, 1, countRows(t, raw, "SELECT count(*) FROM t"), "nothing was restored")
	assert.Equal(t, 0, countRows(t, raw, "SELECT count(*) FROM memory_events"), "nor an event written")

	plan = undoPlan(t, u)
	require.Len(t, plan.Later, 1, "the new plan shows the change as a later one")
	e, err := u.Restore(ctx, plan, undoEvent, func(e domain.Event) domain.AuditEntry {
		q := "undo"
		return domain.AuditEntry{TS: memTS, Session: memSession, Tool: domain.UndoTool, Query: &q, OK: true}
	})
	require.NoError(t, err)
	assert.Equal(t, int64(1), e.ID)
	assert.Equal(t, 2, countRows(t, raw, "SELECT count(*) FROM t"), "the snapshot's rows only: 7 is gone")
	assert.Equal(t, 2, countRows(t, raw, "SELECT count(*) FROM t WHERE id IN (1, 2)"))
	assert.Equal(t, 1, countRows(t, raw, "SELECT count(*) FROM memory_events WHERE kind = 'undo'"))
	assert.Equal(t, 1, countRows(t, raw, "SELECT count(*) FROM query_log WHERE tool = 'undo'"))
	// The private copies go with Close.
	require.NoError(t, u.Close())
	left, err := filepath.Glob(filepath.Join(filepath.Dir(plan.Call.Snapshot), ".undo-*"))
	require.NoError(t, err)
	assert.Empty(t, left)
}

// A snapshot that rotation removed cannot be undone from, and says so.
func TestUndoerInspectSaysWhenTheSnapshotIsGone(t *testing.T) {
	t.Parallel()
	st, _, snap := undoFixture(t)
	u := undo.New(st)
	t.Cleanup(func() { u.Close() })
	require.NoError(t, os.Remove(snap))
	call, err := u.Call(context.Background(), 0)
	require.NoError(t, err)
	_, _, _, _, err = u.Inspect(context.Background(), call)
	require.ErrorIs(t, err, domain.ErrNotFound)
}
