package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
)

// at is the instant the fixed clocks tell: 2026-09-13 10:11:12.345678 UTC.
var at = time.Date(2026, 9, 13, 10, 11, 12, 345_678_000, time.UTC)

func TestSnapshotNamesAndFolder(t *testing.T) {
	tests := []struct {
		name    string
		dir     func(t *testing.T, base string) string // the Options.Dir to pass
		wantDir func(base string) string
	}{
		{
			name:    "default folder beside the database",
			dir:     func(*testing.T, string) string { return "" },
			wantDir: func(base string) string { return filepath.Join(base, "memory.snapshots") },
		},
		{
			name:    "explicit folder",
			dir:     func(_ *testing.T, base string) string { return filepath.Join(base, "elsewhere", "deep") },
			wantDir: func(base string) string { return filepath.Join(base, "elsewhere", "deep") },
		},
		{
			// The command line expands ~ (cmd/mcp-sqlite-memory), once: here
			// it is an ordinary folder name, so a path that reached the
			// adapter expanded is never expanded a second time.
			name: "tilde is a folder name here",
			dir: func(t *testing.T, base string) string {
				t.Setenv("HOME", filepath.Join(base, "home"))
				t.Chdir(base)
				return "~/snaps"
			},
			wantDir: func(base string) string { return filepath.Join(base, "~", "snaps") },
		},
		{
			name: "relative folder resolves against the working directory",
			dir: func(t *testing.T, base string) string {
				t.Chdir(base)
				return "rel"
			},
			wantDir: func(base string) string { return filepath.Join(base, "rel") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			dbPath := filepath.Join(base, "memory.db")
			newDB(t, dbPath, "wal", "memory.db", 3)
			s := snapshot.New(dbPath, snapshot.Options{Dir: tt.dir(t, base), Keep: 5, Clock: fixedClock{at}})

			got, err := s.Snapshot(context.Background(), "test")

			require.NoError(t, err)
			assert.Equal(t, filepath.Join(tt.wantDir(base), "memory.20260913T101112.345Z.db"), got)
			assert.True(t, filepath.IsAbs(got), "path %q is not absolute", got)
			assert.Equal(t, tt.wantDir(base), s.Dir())
			assert.FileExists(t, got)
		})
	}
}

func TestSnapshotCollisionsGetSequenceSuffix(t *testing.T) {
	base := t.TempDir()
	dbPath := filepath.Join(base, "memory.db")
	newDB(t, dbPath, "wal", "memory.db", 3)
	s := snapshot.New(dbPath, snapshot.Options{Keep: 10, Clock: fixedClock{at}})
	want := []string{
		"memory.20260913T101112.345Z.db",
		"memory.20260913T101112.345Z.1.db",
		"memory.20260913T101112.345Z.2.db",
	}

	var got []string
	for range want {
		p, err := s.Snapshot(context.Background(), "test")
		require.NoError(t, err)
		got = append(got, filepath.Base(p))
	}

	assert.Equal(t, want, got)
	for _, name := range want {
		assert.Equal(t, "ok", inspect(t, filepath.Join(s.Dir(), name)).integrity, name)
	}
}

func TestSnapshotConcurrentSnapshottersNeverShareAName(t *testing.T) {
	// Separate Snapshotters stand in for separate server processes: they share
	// nothing in memory, only the folder, and their clocks agree to the ms.
	const n = 8
	base := t.TempDir()
	dbPath := filepath.Join(base, "memory.db")
	newDB(t, dbPath, "wal", "memory.db", 50)
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s := snapshot.New(dbPath, snapshot.Options{Keep: n, Clock: fixedClock{at}})
			paths[i], errs[i] = s.Snapshot(context.Background(), "test")
		})
	}
	wg.Wait()

	for i := range n {
		require.NoError(t, errs[i])
	}
	slices.Sort(paths)
	assert.Len(t, slices.Compact(slices.Clone(paths)), n, "names: %v", paths)
	for _, p := range paths {
		assert.Equal(t, "ok", inspect(t, p).integrity, p)
	}
}

func TestSnapshotRetention(t *testing.T) {
	tests := []struct {
		name  string
		keep  int
		takes int
		want  []string // remaining snapshots, oldest first
	}{
		{"keep 2 of 5", 2, 5, []string{
			"memory.20260913T101115.345Z.db",
			"memory.20260913T101116.345Z.db",
		}},
		{"keep 5 of 3", 5, 3, []string{
			"memory.20260913T101112.345Z.db",
			"memory.20260913T101113.345Z.db",
			"memory.20260913T101114.345Z.db",
		}},
		{"keep 1 of 2", 1, 2, []string{
			"memory.20260913T101113.345Z.db",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dbPath := filepath.Join(base, "memory.db")
			newDB(t, dbPath, "wal", "memory.db", 3)
			s := snapshot.New(dbPath, snapshot.Options{Keep: tt.keep, Clock: &steppingClock{t: at}})

			var last string
			for range tt.takes {
				p, err := s.Snapshot(context.Background(), "test")
				require.NoError(t, err)
				last = p
			}

			assert.Equal(t, tt.want, snapshotsIn(t, s.Dir()))
			assert.Equal(t, tt.want[len(tt.want)-1], filepath.Base(last), "the newest snapshot is kept")
		})
	}
}

func TestSnapshotRotationOnlyTouchesItsOwnDatabase(t *testing.T) {
	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	require.NoError(t, os.MkdirAll(shared, 0o755))
	// Files that look like snapshots of "memory" but are not this database's:
	// an unrelated database, and an unmarked snapshot such as the Python
	// server writes.
	foreign := []string{
		"memory.notes.db",
		"memory.20200101T000000.000Z.db",
		"memory.x.20200101T000000.000Z.db",
		"memory-old.20200101T000000.000Z.db",
	}
	for _, name := range foreign {
		require.NoError(t, os.WriteFile(filepath.Join(shared, name), []byte("not mine"), 0o644))
	}
	// memory.db and memory.sqlite share the stem "memory", so at the same
	// instant they want the same name; memory2.db is a different stem.
	dbNames := []string{"memory.db", "memory.sqlite", "memory2.db"}
	snapshotters := make(map[string]*snapshot.Snapshotter)
	clock := &steppingClock{t: at}
	for _, name := range dbNames {
		p := filepath.Join(base, name)
		newDB(t, p, "wal", name, 3)
		snapshotters[name] = snapshot.New(p, snapshot.Options{Dir: shared, Keep: 2, Clock: clock})
	}

	taken := make(map[string][]string) // per database, oldest first
	for range 4 {
		clock.mu.Lock()
		now := clock.t
		clock.mu.Unlock()
		for _, name := range dbNames {
			clock.mu.Lock()
			clock.t = now // every database snapshots in the same millisecond
			clock.mu.Unlock()
			p, err := snapshotters[name].Snapshot(context.Background(), "test")
			require.NoError(t, err)
			taken[name] = append(taken[name], p)
		}
	}

	for _, name := range dbNames {
		for i, p := range taken[name] {
			if i < 2 {
				assert.NoFileExists(t, p, "%s's old snapshot %d", name, i)
				continue
			}
			if assert.FileExists(t, p, "%s's snapshot %d", name, i) {
				assert.Equal(t, name, inspect(t, p).label, "snapshot %s holds another database", p)
			}
		}
	}
	for _, name := range foreign {
		assert.FileExists(t, filepath.Join(shared, name))
	}
	assert.Equal(t, "memory.20260913T101115.345Z.1.db", filepath.Base(taken["memory.sqlite"][3]))
}

func TestSnapshotKeepZeroCreatesNothing(t *testing.T) {
	for _, keep := range []int{0, -1} {
		base := t.TempDir()
		dbPath := filepath.Join(base, "memory.db")
		newDB(t, dbPath, "wal", "memory.db", 3)
		before := listDir(t, base)
		s := snapshot.New(dbPath, snapshot.Options{Keep: keep, Clock: fixedClock{at}})

		got, err := s.Snapshot(context.Background(), "test")

		require.NoError(t, err)
		assert.Empty(t, got, "keep %d", keep)
		assert.Equal(t, before, listDir(t, base), "keep %d", keep)
	}
}

func TestSnapshotRemovesStaleLeftoversOfItsStemOnly(t *testing.T) {
	base := t.TempDir()
	dbPath := filepath.Join(base, "memory.db")
	newDB(t, dbPath, "wal", "memory.db", 3)
	realPath, err := filepath.EvalSymlinks(dbPath)
	require.NoError(t, err)
	dir := filepath.Join(base, "memory.snapshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	old := time.Now().Add(-2 * time.Hour)
	write := func(name, content string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.NoError(t, os.Chtimes(p, mtime, mtime))
		return p
	}
	gone := []string{
		write(".memory.20200101T000000.000Z.db.123.partial", "dead copy", old),
		write(".memory.20200101T000000.000Z.db.123.partial-journal", "dead journal", old),
		write(".memory.20200101T000000.000Z.db.source", realPath+"\n", old),
	}
	kept := []string{
		write(".memory.20200101T000001.000Z.db.456.partial", "copy in progress", time.Now()),
		write(".memory2.20200101T000000.000Z.db.123.partial", "another stem", old),
		write(".memory.20200101T000002.000Z.db.source", "/somewhere/else/memory.sqlite\n", old),
	}
	s := snapshot.New(dbPath, snapshot.Options{Keep: 2, Clock: fixedClock{at}})

	_, err = s.Snapshot(context.Background(), "test")

	require.NoError(t, err)
	for _, p := range gone {
		assert.NoFileExists(t, p)
	}
	for _, p := range kept {
		assert.FileExists(t, p)
	}
}

// snapshotsIn lists the visible snapshot files of a folder, sorted by name.
func snapshotsIn(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, name := range listDir(t, dir) {
		if name[0] != '.' {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
