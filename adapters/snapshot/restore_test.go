package snapshot_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestListAndResolveOnlyThisDatabasesSnapshots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "memory.db")
	newDB(t, db, "wal", "live", 3)
	s := snapshot.New(db, snapshot.Options{Keep: 5, Clock: &steppingClock{t: time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)}})
	list, err := s.List()
	require.NoError(t, err)
	assert.Empty(t, list, "no folder yet means no snapshots")
	for range 2 {
		_, err := s.Snapshot(context.Background(), "test")
		require.NoError(t, err)
	}
	other := filepath.Join(s.Dir(), "memory2.20260131T120000.000Z.db") // another stem sharing the folder
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o600))
	list, err = s.List()
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Less(t, list[0].Name, list[1].Name, "oldest first")
	assert.Positive(t, list[0].Bytes)

	for _, name := range []string{"", "../memory.db", filepath.Base(other), "." + list[0].Name + ".source",
		"sub/" + list[0].Name, `..\` + list[0].Name, "memory.20260131T130000.000Z.db"} {
		_, err := s.Resolve(name)
		var de *domain.Error
		require.True(t, errors.As(err, &de), "%q: %v", name, err)
		assert.Equal(t, domain.ErrNotFound, de.Kind, name)
	}
	path, err := s.Resolve(list[0].Name)
	require.NoError(t, err)
	assert.Equal(t, list[0].Path, path)
}

func TestRestoreOverSurvivesRotatingItsSourceAway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "memory.db")
	newDB(t, db, "wal", "old", 3)
	s := snapshot.New(db, snapshot.Options{Keep: 1, Clock: &steppingClock{t: time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)}})
	first, err := s.Snapshot(context.Background(), "test")
	require.NoError(t, err)
	h := openDB(t, db)
	_, err = h.Exec(`INSERT INTO t(n) VALUES (4); UPDATE who SET name = 'new'`)
	require.NoError(t, err)

	fresh, err := s.RestoreOver(context.Background(), filepath.Base(first))
	require.NoError(t, err)
	assert.NoFileExists(t, first, "keep=1: the fresh snapshot rotated the source away")
	f := inspect(t, db)
	assert.Equal(t, "ok", f.integrity)
	assert.Equal(t, "old", f.label)
	assert.Equal(t, int64(3), f.rows)
	assert.Equal(t, "wal", f.journal, "the live database stays in WAL mode")
	assert.Equal(t, "new", inspect(t, fresh).label, "the fresh snapshot holds what was replaced")
	var n int64
	require.NoError(t, h.QueryRow(`SELECT count(*) FROM t`).Scan(&n))
	assert.Equal(t, int64(3), n, "an open connection sees the restored file")
	for _, name := range listDir(t, s.Dir()) {
		assert.NotContains(t, name, ".partial", "no private copy is left behind")
	}
}

func TestRestoreToNeverOverwrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "memory.db")
	newDB(t, db, "wal", "live", 2)
	s := snapshot.New(db, snapshot.Options{Keep: 3})
	snap, err := s.Snapshot(context.Background(), "test")
	require.NoError(t, err)
	dst := filepath.Join(dir, "copy.db")
	require.NoError(t, s.RestoreTo(context.Background(), filepath.Base(snap), dst))
	f := inspect(t, dst)
	assert.Equal(t, "live", f.label)
	assert.Equal(t, "delete", f.journal)
	require.Error(t, s.RestoreTo(context.Background(), filepath.Base(snap), dst))
	require.Error(t, s.RestoreTo(context.Background(), filepath.Base(snap), db))
	assert.Equal(t, "live", inspect(t, db).label)

	off := snapshot.New(db, snapshot.Options{Keep: 0})
	_, err = off.RestoreOver(context.Background(), filepath.Base(snap))
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	assert.Contains(t, de.Error(), "--snapshots")
}
