package snapshot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestSnapshotFailsClosed(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, base string) (dbPath string, opts snapshot.Options)
	}{
		{
			name: "snapshot folder is a regular file",
			setup: func(t *testing.T, base string) (string, snapshot.Options) {
				dbPath := filepath.Join(base, "memory.db")
				newDB(t, dbPath, "wal", "memory.db", 3)
				blocker := filepath.Join(base, "memory.snapshots")
				require.NoError(t, os.WriteFile(blocker, []byte("in the way"), 0o644))
				return dbPath, snapshot.Options{}
			},
		},
		{
			name: "snapshot folder lies below a regular file",
			setup: func(t *testing.T, base string) (string, snapshot.Options) {
				dbPath := filepath.Join(base, "memory.db")
				newDB(t, dbPath, "wal", "memory.db", 3)
				blocker := filepath.Join(base, "file")
				require.NoError(t, os.WriteFile(blocker, []byte("in the way"), 0o644))
				return dbPath, snapshot.Options{Dir: filepath.Join(blocker, "snaps")}
			},
		},
		{
			name: "database is missing",
			setup: func(_ *testing.T, base string) (string, snapshot.Options) {
				return filepath.Join(base, "memory.db"), snapshot.Options{}
			},
		},
		{
			name: "database is a folder",
			setup: func(t *testing.T, base string) (string, snapshot.Options) {
				dbPath := filepath.Join(base, "memory.db")
				require.NoError(t, os.Mkdir(dbPath, 0o755))
				return dbPath, snapshot.Options{}
			},
		},
		{
			name: "database is not a SQLite file",
			setup: func(t *testing.T, base string) (string, snapshot.Options) {
				dbPath := filepath.Join(base, "memory.db")
				garbage := []byte(strings.Repeat("this is not a database ", 400))
				require.NoError(t, os.WriteFile(dbPath, garbage, 0o644))
				return dbPath, snapshot.Options{}
			},
		},
	}
	for _, tt := range tests {
		for _, rel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/relative names %v", tt.name, rel), func(t *testing.T) {
				base := t.TempDir()
				dbPath, opts := tt.setup(t, base)
				opts.Keep, opts.Clock, opts.RelativeNames = 5, fixedClock{at}, rel
				before := treeOf(t, base)
				s := snapshot.New(dbPath, opts)

				got, err := s.Snapshot(context.Background(), "test")

				require.ErrorIs(t, err, domain.ErrSnapshot)
				assert.Empty(t, got)
				// The message is what the agent reads: it must say a snapshot failed
				// and must not leak the database's absolute path.
				assert.Contains(t, err.Error(), "snapshot could not be written (")
				assert.NotContains(t, err.Error(), dbPath)
				if rel {
					assert.NotContains(t, err.Error(), base, "with relative names, no absolute path at all")
				}
				after := treeOf(t, base)
				if _, had := before[s.Dir()]; !had && after[s.Dir()] == "dir" {
					delete(after, s.Dir()) // the folder may be created before the copy fails
				}
				assert.Equal(t, before, after, "no file was created, changed or left behind")
			})
		}
	}
}

// With relative names the snapshot is named by its file name in the
// folder, and that file is the snapshot.
func TestSnapshotRelativeNames(t *testing.T) {
	base := t.TempDir()
	dbPath := filepath.Join(base, "memory.db")
	newDB(t, dbPath, "wal", "memory.db", 3)
	s := snapshot.New(dbPath, snapshot.Options{Keep: 5, Clock: fixedClock{at}, RelativeNames: true})
	got, err := s.Snapshot(context.Background(), "test")
	require.NoError(t, err)
	assert.Equal(t, filepath.Base(got), got, "a name, not a path")
	assert.Equal(t, int64(3), inspect(t, filepath.Join(s.Dir(), got)).rows)
}

func TestSnapshotCancelledBeforeStartWritesNothing(t *testing.T) {
	base := t.TempDir()
	dbPath := filepath.Join(base, "memory.db")
	newDB(t, dbPath, "wal", "memory.db", 3)
	s := snapshot.New(dbPath, snapshot.Options{Keep: 5, Clock: fixedClock{at}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	got, err := s.Snapshot(ctx, "test")

	require.ErrorIs(t, err, domain.ErrSnapshot)
	assert.Empty(t, got)
	assert.NoDirExists(t, s.Dir())
}

// treeOf maps every path below root (root excluded) to its size and, for
// files, contents, so a test can tell that nothing changed.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	tree := make(map[string]string)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if d.IsDir() {
			tree[p] = "dir"
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tree[p] = string(data)
		return nil
	})
	require.NoError(t, err)
	return tree
}
