package snapshot_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
)

// benchDBMiB is the size of the benchmark database.
const benchDBMiB = 200

// BenchmarkSnapshot compares a snapshot of a 200 MiB WAL database with a
// plain `cp` of the file, with `cp` followed by `sync` of the copy, and with
// `sqlite3 db ".backup out"`; compare the sub-benchmarks' ns/op. The commands
// run as processes, so their times include a fork/exec (about a
// millisecond). Plain cp does not fsync; the others do, and the Snapshotter's
// time also includes rotating its previous snapshot away.
func BenchmarkSnapshot(b *testing.B) {
	base := b.TempDir()
	dbPath := filepath.Join(base, "memory.db")
	buildBenchDB(b, dbPath)
	info, err := os.Stat(dbPath)
	require.NoError(b, err)
	out := filepath.Join(base, "out")
	require.NoError(b, os.Mkdir(out, 0o755))

	b.Run("Snapshotter", func(b *testing.B) {
		s := snapshot.New(dbPath, snapshot.Options{Dir: out, Keep: 1})
		b.SetBytes(info.Size())
		for b.Loop() {
			if _, err := s.Snapshot(context.Background(), "benchmark"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cp", func(b *testing.B) {
		benchCommand(b, info.Size(), out, func(dst string) *exec.Cmd { return exec.Command("cp", dbPath, dst) })
	})
	b.Run("cp+sync", func(b *testing.B) {
		benchCommand(b, info.Size(), out, func(dst string) *exec.Cmd {
			return exec.Command("sh", "-c", `cp "$1" "$2" && sync "$2"`, "sh", dbPath, dst)
		})
	})
	b.Run("sqlite3-backup", func(b *testing.B) {
		if _, err := exec.LookPath("sqlite3"); err != nil {
			b.Skip("sqlite3 CLI not installed")
		}
		benchCommand(b, info.Size(), out, func(dst string) *exec.Cmd {
			return exec.Command("sqlite3", dbPath, fmt.Sprintf(".backup '%s'", dst))
		})
	})
}

// benchCommand times a command that copies the database to a new file.
func benchCommand(b *testing.B, size int64, out string, command func(dst string) *exec.Cmd) {
	b.SetBytes(size)
	i := 0
	for b.Loop() {
		dst := filepath.Join(out, fmt.Sprintf("copy-%d.db", i))
		i++
		if msg, err := command(dst).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, msg)
		}
		b.StopTimer()
		require.NoError(b, os.Remove(dst))
		b.StartTimer()
	}
}

// buildBenchDB writes a WAL database of about benchDBMiB MiB: one table of
// 1 MiB random blobs plus a table of small rows.
func buildBenchDB(b *testing.B, path string) {
	b.Helper()
	db, err := sql.Open("sqlite", dsn(path, "journal_mode(wal)", "synchronous(off)"))
	require.NoError(b, err)
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE blobs(id INTEGER PRIMARY KEY, data BLOB);
		CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);`)
	require.NoError(b, err)
	_, err = db.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < ?)
		INSERT INTO blobs(data) SELECT randomblob(1048576) FROM c`, benchDBMiB-2)
	require.NoError(b, err)
	_, err = db.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < 20000)
		INSERT INTO notes(body) SELECT printf('note %d %s', n, hex(randomblob(40))) FROM c`)
	require.NoError(b, err)
	_, err = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	require.NoError(b, err)
}
