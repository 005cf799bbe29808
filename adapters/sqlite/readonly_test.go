package sqlite_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Read-only mode at the store level: the file is opened read-only by SQLite
// itself, nothing next to it appears or changes, and every failure to open it
// says what is wrong without naming the folder.

// roFolder is a folder name with the characters a file: URI must escape; it
// must never show up in an error text.
const roFolder = "secret folder #1 (100%) ?x"

// fileState is everything a session could change about a database file.
type fileState struct {
	Sum   [32]byte
	MTime time.Time
	Mode  fs.FileMode
	Files []string // every name in the file's folder
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	ents, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	st := fileState{Sum: sha256.Sum256(b), MTime: fi.ModTime(), Mode: fi.Mode()}
	for _, e := range ents {
		st.Files = append(st.Files, e.Name())
	}
	return st
}

// mustRawDB creates a database with plain database/sql, outside the store:
// no server tables, in the given journal mode.
func mustRawDB(t *testing.T, path, journal string, stmts ...string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=journal_mode(" + journal + ")"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	defer db.Close()
	for _, q := range stmts {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

// mustServerDB creates a database the way the server does (WAL, server
// tables, one event), closes it cleanly and returns its path.
func mustServerDB(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "memory.db")
	s := mustOpenWith(t, path, sqlite.Options{})
	mustAppend(t, s, "note", "written before the read-only session")
	_, err := s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierDestructive, SQL: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"}, func([]string) {}, func([]any) bool { return true })
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = os.Stat(path + "-wal")
	require.ErrorIs(t, err, fs.ErrNotExist, "a clean close removes the -wal file")
	return path
}

// exercise runs every read path and every write path of the store; the
// writes must all fail. It returns the error texts it saw.
func exercise(t *testing.T, s *testDB) []string {
	t.Helper()
	ctx := context.Background()
	var texts []string
	fails := func(what string, err error) {
		if assert.Error(t, err, what) {
			texts = append(texts, err.Error())
		}
	}
	tables, err := s.Tables(ctx, true)
	require.NoError(t, err)
	require.NotEmpty(t, tables)
	_, err = s.Describe(ctx, tables[0].Name)
	assert.NoError(t, err)
	_, err = s.Objects(ctx)
	assert.NoError(t, err)
	memory, err := s.Available(ctx)
	require.NoError(t, err)
	if memory {
		_, err = s.Events(ctx, nil, func(domain.Event) bool { return true })
		assert.NoError(t, err)
		_, err = s.Resume(ctx, 10, nil)
		assert.NoError(t, err)
	}
	_, err = readRows(s, "SELECT count(*) FROM sqlite_schema")
	assert.NoError(t, err)

	_, err = readRows(s, "INSERT INTO notes (body) VALUES ('x')")
	fails("read tier insert", err)
	_, err = readRows(s, "SELECT * FROM no_such_table")
	fails("read of a missing table", err)
	for _, tier := range []domain.Tier{domain.TierWrite, domain.TierDestructive} {
		for _, q := range []string{"INSERT INTO notes (body) VALUES ('x')", "CREATE TABLE t (a)", "DROP TABLE notes"} {
			_, err := s.Write(ctx, domain.WriteRequest{Tier: tier, SQL: q}, func([]string) {}, func([]any) bool { return true })
			fails(tier.Tool()+" "+q, err)
		}
	}
	_, err = s.Append(ctx, func(id int64, hash string) (domain.Event, error) {
		return domain.NewEvent(id, hash, memTS, memSession, "note", "must not be stored")
	}, nil)
	fails("append", err)
	_, err = s.Checkpoint(ctx, func(id int64, hash string) (domain.Checkpoint, error) {
		return domain.NewCheckpoint(id, hash, memTS, memSession, "must not be stored")
	}, nil)
	fails("checkpoint", err)
	fails("create view", s.ReplaceView(ctx, domain.View{Name: "v", Body: "SELECT 1"}, false, nil))
	fails("audit row", s.Record(ctx, domain.AuditEntry{TS: memTS, Session: memSession, Tool: "read_query", OK: true}))
	return texts
}

func TestReadOnlySessionChangesNothing(t *testing.T) {
	cases := []struct {
		name   string
		make   func(t *testing.T, dir string) string
		memory bool
	}{
		{"WAL database made by the server", func(t *testing.T, dir string) string {
			return mustServerDB(t, dir)
		}, true},
		{"rollback-journal database made elsewhere", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "plain.db")
			mustRawDB(t, path, "delete", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('a'), ('b')")
			return path
		}, false},
		{"WAL database made elsewhere", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "foreign.db")
			mustRawDB(t, path, "wal", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('a')")
			return path
		}, false},
		{"file with read-only permissions", func(t *testing.T, dir string) string {
			// As root the permission bits do not stop a write, so this case
			// shows that read-only mode never needs them: it also runs where
			// they do stop writes, and it must not change them.
			path := mustServerDB(t, dir)
			require.NoError(t, os.Chmod(path, 0o444))
			return path
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), roFolder)
			path := c.make(t, dir)
			before := stateOf(t, path)

			s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
			memory, err := s.Available(context.Background())
			require.NoError(t, err)
			assert.Equal(t, c.memory, memory, "server tables exist only where the server made them")
			texts := exercise(t, s)
			assert.Equal(t, before.Files, stateOf(t, path).Files, "no -wal, -shm or -journal file while the session runs")
			require.NoError(t, s.Close())

			assert.Equal(t, before, stateOf(t, path), "same bytes, modification time, mode and neighbours")
			for _, text := range texts {
				assert.NotContains(t, text, dir, "error texts name no folder")
			}
		})
	}
}

func TestReadOnlySharesALiveWriterFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), roFolder)
	path := filepath.Join(dir, "live.db")
	ctx := context.Background()
	writer := mustOpenWith(t, path, sqlite.Options{})
	mustAppendN(t, writer, 3)
	_, err := os.Stat(path + "-wal")
	require.NoError(t, err, "the open writer keeps its -wal file")
	before := stateOf(t, path)

	reader := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
	n, err := reader.Events(ctx, nil, func(domain.Event) bool { return true })
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "committed events still in the -wal file are read")
	mustAppend(t, writer, "note", "written while the reader is open")
	n, err = reader.Events(ctx, nil, func(domain.Event) bool { return true })
	require.NoError(t, err)
	assert.Equal(t, int64(4), n, "a live writer's new commits are seen: the file is read with locking")
	require.NoError(t, reader.Close())
	assert.Equal(t, before.Files, stateOf(t, path).Files, "the reader made no file of its own")
}

func TestReadOnlyEngineRefusesWritesWithBothLayersOff(t *testing.T) {
	path := mustServerDB(t, filepath.Join(t.TempDir(), roFolder))
	before := stateOf(t, path)
	s := mustOpenWith(t, path, sqlite.WithoutAuthorizer(sqlite.WithoutProgramCheck(sqlite.Options{ReadOnly: true})))
	for _, q := range []string{
		"INSERT INTO notes (body) VALUES ('x')",
		"UPDATE memory_events SET content = 'x'",
		"CREATE TABLE t (a)",
		"DROP TABLE notes",
		"PRAGMA incremental_vacuum",
	} {
		_, err := readRows(s, q)
		assert.ErrorIs(t, err, domain.ErrSQLite, "mode=ro and query_only refuse %q", q)
	}
	require.NoError(t, s.Close())
	assert.Equal(t, before, stateOf(t, path))
}

func TestReadOnlyRefusesAMissingFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), roFolder)
	path := filepath.Join(dir, "nested", "missing.db")
	_, err := openTestDB(context.Background(), path, sqlite.Options{ReadOnly: true})
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotContains(t, err.Error(), dir)
	_, err = os.Stat(dir)
	assert.ErrorIs(t, err, fs.ErrNotExist, "not even the folder is created")
}

// mustHotJournal makes what a writer that crashed mid-transaction leaves
// behind: a rollback-journal database whose pages were already changed,
// and the hot journal needed to undo them.
func mustHotJournal(t *testing.T, dir string) string {
	t.Helper()
	live := filepath.Join(t.TempDir(), "hot.db")
	mustRawDB(t, live, "delete")
	db, err := sql.Open("sqlite", "file:"+live)
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE TABLE t (a)",
		"WITH RECURSIVE c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300) INSERT INTO t SELECT randomblob(500) FROM c",
		"PRAGMA cache_size = 2", // spill changed pages into the file before COMMIT
		"BEGIN",
		"UPDATE t SET a = randomblob(500)",
	} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, suffix := range []string{"", "-journal"} {
		b, err := os.ReadFile(live + suffix)
		require.NoError(t, err, "the transaction is open, so its journal exists")
		require.NoError(t, os.WriteFile(filepath.Join(dir, "hot.db"+suffix), b, 0o644))
	}
	return filepath.Join(dir, "hot.db")
}

// The texts below are the contract: they say what is wrong and what to do,
// and never name the folder.
func TestReadOnlyOpenFailuresSayWhatIsWrong(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, dir string) string
		want []string
	}{
		{"not a database", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "notes.txt")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(path, []byte("plain notes, not a database\n"), 0o644))
			return path
		}, []string{"notes.txt is not a SQLite database", "file is not a database"}},
		{"WAL database whose -shm file is a symbolic link", func(t *testing.T, dir string) string {
			// A -wal file says another program may be writing, so the file
			// must be read with locking, through the -shm file; SQLite
			// would follow a link there (or fail on a dangling one). A
			// folder without write permission, where SQLite cannot create
			// -shm, is run by test/readonly as an unprivileged user.
			path := mustServerDB(t, dir)
			require.NoError(t, os.WriteFile(path+"-wal", nil, 0o644))
			require.NoError(t, os.Symlink(filepath.Join(dir, "gone", "memory.db-shm"), path+"-shm"))
			return path
		}, []string{"cannot read memory.db in read-only mode", "memory.db-shm is not a regular file (a symbolic link)", "copy the database"}},
		{"hot journal left by a crashed writer", mustHotJournal,
			[]string{"cannot read hot.db in read-only mode", "left hot.db-journal", "open it once read-write"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), roFolder)
			path := c.make(t, dir)
			before := stateOf(t, path)
			_, err := openTestDB(context.Background(), path, sqlite.Options{ReadOnly: true})
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), dir)
			assert.Equal(t, before, stateOf(t, path), "a failed open changes nothing either")
		})
	}
}

func TestReadOnlyUnreadableFileIsNamed(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file whatever its permission bits; test/readonly runs this case as an unprivileged user")
	}
	dir := filepath.Join(t.TempDir(), roFolder)
	path := mustServerDB(t, dir)
	require.NoError(t, os.Chmod(path, 0))
	t.Cleanup(func() { os.Chmod(path, 0o644) })
	_, err := openTestDB(context.Background(), path, sqlite.Options{ReadOnly: true})
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "memory.db")
	assert.NotContains(t, err.Error(), dir)
}

func TestReadOnlyFolderWithoutWritePermission(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into any folder whatever its permission bits; test/readonly runs this case as an unprivileged user")
	}
	dir := filepath.Join(t.TempDir(), roFolder)
	path := mustServerDB(t, dir)
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before := stateOf(t, path)

	s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
	exercise(t, s)
	require.NoError(t, s.Close())
	assert.Equal(t, before, stateOf(t, path), "a closed WAL database is read without its -wal and -shm files")

	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.WriteFile(path+"-wal", nil, 0o644))
	require.NoError(t, os.Chmod(dir, 0o555))
	_, err := openTestDB(context.Background(), path, sqlite.Options{ReadOnly: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "memory.db-shm")
	assert.NotContains(t, err.Error(), dir)
	assert.Equal(t, []string{"memory.db", "memory.db-wal"}, stateOf(t, path).Files, "nothing created")
}
