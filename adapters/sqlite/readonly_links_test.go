package sqlite_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Read-only mode and the files around a database: links, leftover -wal
// files, files replaced while the session runs. Each case is one member of
// the class "SQLite would read other files than the server checked".

// roLiveWriter makes a WAL database at path with 100 rows in t, closes it
// (every row in the main file), then opens it again as a writer with
// automatic checkpoints off and commits 100 more rows, which stay in the
// -wal file while the returned connection is open. A faithful reader sees
// 200 rows; one that ignores the -wal file sees 100.
func roLiveWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	mustRawDB(t, path, "wal", "CREATE TABLE t (a)",
		"WITH RECURSIVE c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) INSERT INTO t SELECT x FROM c")
	require.NoFileExists(t, path+"-wal")
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=wal_autocheckpoint(0)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec("WITH RECURSIVE c (x) AS (SELECT 101 UNION ALL SELECT x + 1 FROM c WHERE x < 200) INSERT INTO t SELECT x FROM c")
	require.NoError(t, err)
	require.FileExists(t, path+"-wal")
	require.FileExists(t, path+"-shm")
	return db
}

// roCount reads count(*) of t through the read tier.
func roCount(t *testing.T, s *testDB) (int64, error) {
	t.Helper()
	rows, err := readRows(s, "SELECT count(*) FROM t")
	if err != nil {
		return 0, err
	}
	return rows[0][0].(int64), nil
}

// roNames lists a folder.
func roNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestReadOnlyReadsTheRealFileBehindLinks(t *testing.T) {
	cases := []struct {
		name string
		// link makes another spelling of real inside other and returns it.
		link func(t *testing.T, real, other string) string
	}{
		{"symbolic link to the file", func(t *testing.T, real, other string) string {
			link := filepath.Join(other, "link.db")
			require.NoError(t, os.Symlink(real, link))
			return link
		}},
		{"symbolic link to a folder", func(t *testing.T, real, other string) string {
			link := filepath.Join(other, "folder")
			require.NoError(t, os.Symlink(filepath.Dir(real), link))
			return filepath.Join(link, filepath.Base(real))
		}},
		{"link to a link", func(t *testing.T, real, other string) string {
			first, second := filepath.Join(other, "first.db"), filepath.Join(other, "second.db")
			require.NoError(t, os.Symlink(real, first))
			require.NoError(t, os.Symlink(first, second))
			return second
		}},
		{".. after a linked folder is the folder above its target", func(t *testing.T, real, other string) string {
			// other/sub -> <real's folder>/deeper, so other/sub/../shop.db
			// is the real file for the system, while cleaning the text
			// would give other/shop.db, a decoy with other rows.
			deeper := filepath.Join(filepath.Dir(real), "deeper")
			require.NoError(t, os.Mkdir(deeper, 0o755))
			require.NoError(t, os.Symlink(deeper, filepath.Join(other, "sub")))
			mustRawDB(t, filepath.Join(other, "shop.db"), "delete", "CREATE TABLE t (a)", "INSERT INTO t VALUES (1)")
			return other + "/sub/../shop.db"
		}},
		{"relative path through a link", func(t *testing.T, real, other string) string {
			require.NoError(t, os.Symlink(real, filepath.Join(other, "link.db")))
			t.Chdir(other)
			return "link.db"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			real := filepath.Join(root, roFolder, "shop.db")
			other := filepath.Join(root, "other place")
			require.NoError(t, os.MkdirAll(other, 0o755))
			writer := roLiveWriter(t, real)
			path := c.link(t, real, other)
			realBefore, otherBefore := roNames(t, filepath.Dir(real)), roNames(t, other)

			s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
			n, err := roCount(t, s)
			require.NoError(t, err)
			assert.Equal(t, int64(200), n, "the rows still in the real file's -wal are read")
			_, err = writer.Exec("INSERT INTO t VALUES (201)")
			require.NoError(t, err)
			n, err = roCount(t, s)
			require.NoError(t, err)
			assert.Equal(t, int64(201), n, "the live writer's new commit is seen")
			rows, err := readRows(s, "PRAGMA journal_mode")
			require.NoError(t, err)
			assert.Equal(t, [][]any{{"wal"}}, rows)
			assert.Equal(t, realBefore, roNames(t, filepath.Dir(real)), "nothing created beside the real file")
			assert.Equal(t, otherBefore, roNames(t, other), "nothing created beside the link")
			require.NoError(t, s.Close())
		})
	}
}

// roCopy copies a live writer's database with the given companion files
// into dir, as a user copying files would.
func roCopy(t *testing.T, from, dir string, suffixes ...string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	to := filepath.Join(dir, filepath.Base(from))
	for _, suffix := range append([]string{""}, suffixes...) {
		b, err := os.ReadFile(from + suffix)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(to+suffix, b, 0o644))
	}
	return to
}

func TestReadOnlyRefusesWhatItCannotReadFaithfully(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, live, dir string) string
		want []string
	}{
		{"-wal copied without -shm", func(t *testing.T, live, dir string) string {
			return roCopy(t, live, dir, "-wal")
		}, []string{"cannot read shop.db in read-only mode", "shop.db-wal file holds transactions", "no shop.db-shm", "open the database once read-write"}},
		{"-wal is a folder", func(t *testing.T, live, dir string) string {
			path := roCopy(t, live, dir, "-shm")
			require.NoError(t, os.Mkdir(path+"-wal", 0o755))
			return path
		}, []string{"shop.db-wal is not a regular file (a folder)"}},
		{"-wal is a symbolic link to another database's -wal", func(t *testing.T, live, dir string) string {
			path := roCopy(t, live, dir, "-shm")
			require.NoError(t, os.Symlink(live+"-wal", path+"-wal"))
			return path
		}, []string{"shop.db-wal is not a regular file (a symbolic link)"}},
		{"WAL database with two hard links", func(t *testing.T, live, dir string) string {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			path := filepath.Join(dir, "shop.db")
			require.NoError(t, os.Link(live, path))
			return path
		}, []string{"cannot read shop.db in read-only mode", "2 hard links", "copy the file"}},
		{"a folder named like the database", func(t *testing.T, _, dir string) string {
			path := filepath.Join(dir, "shop.db")
			require.NoError(t, os.MkdirAll(path, 0o755))
			return path
		}, []string{"shop.db is not a regular file (a folder)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			live := filepath.Join(t.TempDir(), "live", "shop.db")
			roLiveWriter(t, live)
			dir := filepath.Join(t.TempDir(), roFolder)
			path := c.make(t, live, dir)
			names := roNames(t, dir)
			_, err := openTestDB(context.Background(), path, sqlite.Options{ReadOnly: true})
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), dir)
			assert.NotContains(t, err.Error(), filepath.Dir(live))
			assert.Equal(t, names, roNames(t, dir), "a refused open creates nothing")
		})
	}
}

// A -wal file left without -shm that holds no transaction (empty, or
// without WAL's magic number, which SQLite ignores) does not stop a read:
// the database is read from the main file alone, and nothing is created.
// Once the -wal file changes, a writer is at work and reads stop.
func TestReadOnlyReadsPastALeftoverWALWithoutTransactions(t *testing.T) {
	for name, leftover := range map[string][]byte{"empty": nil, "no WAL header": make([]byte, 4096)} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), roFolder)
			path := filepath.Join(dir, "shop.db")
			mustRawDB(t, path, "wal", "CREATE TABLE t (a)", "INSERT INTO t VALUES (1), (2)")
			require.NoError(t, os.WriteFile(path+"-wal", leftover, 0o644))
			before := stateOf(t, path)
			s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
			n, err := roCount(t, s)
			require.NoError(t, err)
			assert.Equal(t, int64(2), n)
			assert.Equal(t, before, stateOf(t, path), "nothing created")
			frames := append([]byte{0x37, 0x7f, 0x06, 0x82}, make([]byte, 8188)...)
			require.NoError(t, os.WriteFile(path+"-wal", frames, 0o644)) // a writer's frames
			_, err = roCount(t, s)
			assert.ErrorIs(t, err, domain.ErrUnavailable, "a -wal that changes means a writer")
			require.NoError(t, s.Close())
		})
	}
}

func TestReadOnlyRefusesOnceTheFileChanges(t *testing.T) {
	cases := []struct {
		name   string
		live   bool // a writer has the file open: it is read with locking
		change func(t *testing.T, path string)
		want   string
	}{
		{"a writer commits and closes cleanly (no -wal left)", false, func(t *testing.T, path string) {
			mustRawDB(t, path, "wal", "INSERT INTO t VALUES (1000)")
			require.NoFileExists(t, path+"-wal")
		}, "another program started writing to shop.db"},
		{"another database renamed over it", false, func(t *testing.T, path string) {
			other := filepath.Join(t.TempDir(), "other.db")
			mustRawDB(t, other, "delete", "CREATE TABLE t (a)")
			require.NoError(t, os.Rename(other, path))
		}, "shop.db was replaced, moved or deleted"},
		{"deleted", false, func(t *testing.T, path string) {
			require.NoError(t, os.Remove(path))
		}, "shop.db was replaced, moved or deleted"},
		{"renamed over while a writer has it open", true, func(t *testing.T, path string) {
			other := filepath.Join(t.TempDir(), "other.db")
			mustRawDB(t, other, "delete", "CREATE TABLE t (a)")
			require.NoError(t, os.Rename(other, path))
		}, "shop.db was replaced, moved or deleted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), roFolder, "shop.db")
			if c.live {
				roLiveWriter(t, path)
			} else {
				mustRawDB(t, path, "wal", "CREATE TABLE t (a)", "INSERT INTO t VALUES (1)")
			}
			s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
			_, err := roCount(t, s)
			require.NoError(t, err)
			c.change(t, path)
			_, err = roCount(t, s)
			require.ErrorIs(t, err, domain.ErrUnavailable)
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "restart the server")
			_, err = s.Tables(context.Background(), true)
			assert.ErrorIs(t, err, domain.ErrUnavailable, "the catalog refuses too")
		})
	}
}

func TestReadOnlyJournalModeIsTruthful(t *testing.T) {
	closedWAL := filepath.Join(t.TempDir(), "closed.db")
	mustRawDB(t, closedWAL, "wal", "CREATE TABLE t (a)", "INSERT INTO t VALUES (1)")
	s := mustOpenWith(t, closedWAL, sqlite.Options{ReadOnly: true})
	for _, q := range []string{"PRAGMA journal_mode", "pragma  MAIN.Journal_Mode ;"} {
		rows, err := readRows(s, q)
		require.NoError(t, err, q)
		assert.Equal(t, [][]any{{"wal"}}, rows, "%s: the plain pragma is answered with the truth", q)
	}
	for _, q := range []string{
		"PRAGMA /* other spellings reach SQLite */ journal_mode",
		"SELECT * FROM pragma_journal_mode",
		"SELECT upper(journal_mode) FROM pragma_journal_mode()",
		"SELECT t.a, j.journal_mode FROM t, pragma_journal_mode AS j",
	} {
		_, err := readRows(s, q)
		if assert.Error(t, err, q) {
			assert.Contains(t, err.Error(), "closed.db is a WAL database (journal_mode wal)", q)
		}
	}

	rollback := filepath.Join(t.TempDir(), "rollback.db")
	mustRawDB(t, rollback, "delete", "CREATE TABLE t (a)")
	live := filepath.Join(t.TempDir(), "live.db")
	roLiveWriter(t, live)
	for path, want := range map[string]string{rollback: "delete", live: "wal"} {
		s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
		rows, err := readRows(s, "PRAGMA journal_mode")
		require.NoError(t, err)
		assert.Equal(t, [][]any{{want}}, rows, path)
	}
}

// A read that runs while another program changes a file opened with
// immutable=1 returns no rows: they could mix old and new pages.
func TestReadOnlyDropsARunningReadWhenTheFileChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), roFolder, "shop.db")
	mustRawDB(t, path, "wal", "CREATE TABLE t (a)", "INSERT INTO t VALUES (1), (2), (3)")
	s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
	changed := false
	var got [][]any
	err := s.Read(context.Background(), "SELECT a FROM t", func([]string) {}, func(r []any) bool {
		if !changed {
			mustRawDB(t, path, "wal", "INSERT INTO t VALUES (4)") // a writer comes and goes
			changed = true
		}
		got = append(got, append([]any(nil), r...))
		return true
	})
	require.ErrorIs(t, err, domain.ErrUnavailable)
	assert.Contains(t, err.Error(), "another program started writing to shop.db")
}

// A -wal and a stale -shm copied from a live writer, with no writer now:
// SQLite rebuilds its index of the -wal in the -shm (shared memory, as any
// reader does) and every committed row is read; no file appears.
func TestReadOnlyReadsACopyWithItsWALAndSHM(t *testing.T) {
	live := filepath.Join(t.TempDir(), "live", "shop.db")
	writer := roLiveWriter(t, live)
	dir := filepath.Join(t.TempDir(), roFolder)
	path := roCopy(t, live, dir, "-wal", "-shm")
	require.NoError(t, writer.Close())
	before := stateOf(t, path)
	s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
	n, err := roCount(t, s)
	require.NoError(t, err)
	assert.Equal(t, int64(200), n)
	require.NoError(t, s.Close())
	assert.Equal(t, before, stateOf(t, path), "the database's bytes, time and neighbours are unchanged")
}

// A -shm left without a -wal (a crash after the -wal was removed, or a
// partial copy) means nothing: every transaction is in the main file, which
// is read alone; the stale -shm is neither used nor changed.
func TestReadOnlyIgnoresALeftoverSHM(t *testing.T) {
	dir := filepath.Join(t.TempDir(), roFolder)
	path := filepath.Join(dir, "shop.db")
	mustRawDB(t, path, "wal", "CREATE TABLE t (a)", "INSERT INTO t VALUES (1), (2)")
	require.NoError(t, os.WriteFile(path+"-shm", []byte("stale index"), 0o644))
	before, shm := stateOf(t, path), stateOf(t, path+"-shm")
	s := mustOpenWith(t, path, sqlite.Options{ReadOnly: true})
	n, err := roCount(t, s)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
	require.NoError(t, s.Close())
	assert.Equal(t, before, stateOf(t, path))
	assert.Equal(t, shm.Sum, stateOf(t, path+"-shm").Sum)
}
