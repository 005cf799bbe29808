package snapshot_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

func TestSnapshotIsCompleteAndSelfContained(t *testing.T) {
	tests := []struct {
		name    string
		folder  string // parent folder of the database
		journal string
	}{
		{"WAL database", "plain", "wal"},
		{"rollback-journal database", "plain", "delete"},
		{"path with URI characters", "a?b#c%d e&f=g", "wal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), tt.folder)
			require.NoError(t, os.MkdirAll(base, 0o755))
			dbPath := filepath.Join(base, "memory.db")
			newDB(t, dbPath, tt.journal, "memory.db", 500)
			// Keep a connection open so a WAL source still has its -wal
			// file, with the last commits not yet checkpointed.
			live := openDB(t, dbPath)
			_, err := live.Exec(`INSERT INTO t VALUES (501, x'00')`)
			require.NoError(t, err)
			s := snapshot.New(dbPath, snapshot.Options{Keep: 5, Clock: fixedClock{at}})

			p, err := s.Snapshot(context.Background(), "test")

			require.NoError(t, err)
			assert.ElementsMatch(t, []string{filepath.Base(p), "." + filepath.Base(p) + ".source"}, listDir(t, s.Dir()),
				"only the snapshot and its marker: no partial, -wal, -shm or -journal file")
			header := make([]byte, 20)
			f, err := os.Open(p)
			require.NoError(t, err)
			_, err = f.ReadAt(header, 0)
			require.NoError(t, f.Close())
			require.NoError(t, err)
			assert.Equal(t, "SQLite format 3\x00", string(header[:16]))
			assert.Equal(t, []byte{1, 1}, header[18:20], "file format versions: 1 = rollback journal, 2 = WAL")
			facts := inspect(t, p)
			assert.Equal(t, snapshotFacts{integrity: "ok", journal: "delete", label: "memory.db", rows: 501, maxN: 501}, facts)
			assert.NoFileExists(t, p+"-wal", "reading the snapshot needs no WAL")
		})
	}
}

func TestSnapshotCopiesDatabasePermissions(t *testing.T) {
	base := t.TempDir()
	dbPath := filepath.Join(base, "memory.db")
	newDB(t, dbPath, "wal", "memory.db", 3)
	require.NoError(t, os.Chmod(dbPath, 0o640))
	s := snapshot.New(dbPath, snapshot.Options{Keep: 1, Clock: fixedClock{at}})

	p, err := s.Snapshot(context.Background(), "test")

	require.NoError(t, err)
	info, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
}

func TestSnapshotIsConsistentWhileAnotherWriterRuns(t *testing.T) {
	tests := []struct {
		name    string
		journal string
		start   func(t *testing.T, path string)
	}{
		{"WAL, writer process", "wal", startWriterProcess},
		{"WAL, writer goroutine", "wal", startWriterGoroutine},
		{"rollback journal, writer process", "delete", startWriterProcess},
		{"rollback journal, writer goroutine", "delete", startWriterGoroutine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dbPath := filepath.Join(base, "memory.db")
			const initial = 3000 // ~4 MB, so each copy takes a while
			newDB(t, dbPath, tt.journal, "memory.db", initial)
			tt.start(t, dbPath)
			s := snapshot.New(dbPath, snapshot.Options{Keep: 10, Clock: &steppingClock{t: at}})

			live, err := sql.Open("sqlite", dsn(dbPath))
			require.NoError(t, err)
			t.Cleanup(func() { live.Close() })
			var counts []int64
			// In rollback-journal mode a writer that never pauses can keep
			// the copy from its read lock past the busy timeout; on a busy
			// machine it does. That copy fails closed, saying so, and the
			// next one is tried: what is checked is that every snapshot
			// written is consistent, not how soon one gets its turn.
			busy := 0
			for len(counts) < 6 {
				p, err := s.Snapshot(context.Background(), "test")
				if err != nil && tt.journal == "delete" && strings.Contains(err.Error(), "database is locked") && busy < 10 {
					require.ErrorIs(t, err, domain.ErrSnapshot)
					busy++
					continue
				}
				require.NoError(t, err)
				facts := inspect(t, p)
				assert.Equal(t, "ok", facts.integrity, p)
				// Every writer transaction adds `batch` rows numbered on from
				// the last: a consistent copy holds exactly rows 1..count
				// with count a whole number of batches past the initial rows.
				assert.Equal(t, facts.rows, facts.maxN, "rows are 1..n without gaps")
				assert.Zero(t, (facts.rows-initial)%batch, "a transaction was copied in part: %d rows", facts.rows)
				counts = append(counts, facts.rows)
				// The writer commits again before the next copy.
				require.Eventually(t, func() bool {
					var n int64
					return live.QueryRow(`SELECT count(*) FROM t`).Scan(&n) == nil && n > facts.rows
				}, slack.Of(20*time.Second), 5*time.Millisecond, "the writer stopped writing")
			}
			if busy > 0 {
				t.Logf("%d copies found the database locked by the writer and failed closed", busy)
			}
			assert.IsNonDecreasing(t, counts)
			assert.Greater(t, counts[len(counts)-1], int64(initial), "the writer was writing meanwhile")
		})
	}
}
