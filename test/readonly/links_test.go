package readonly_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// Read-only mode reads the file SQLite reads, with the -wal and -shm files
// SQLite uses, or refuses in one line; it creates nothing and never returns
// data older than a normal reader sees (docs/decisions.md#read-only-files). Each test below runs
// the built binary on one member of the class.

// linksLiveWriter makes a WAL database at path with 100 rows in t, closed
// cleanly, then keeps a writer open on it (automatic checkpoints off) that
// has committed 100 more rows, which stay in the -wal file: a faithful
// reader sees 200 rows, one that ignores the -wal file sees 100.
func linksLiveWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	db, err := sql.Open("sqlite", dsn(path, "_pragma=journal_mode(wal)"))
	require.NoError(t, err)
	_, err = db.Exec("CREATE TABLE t (a); WITH RECURSIVE c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) INSERT INTO t SELECT x FROM c")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NoFileExists(t, path+"-wal")
	db, err = sql.Open("sqlite", dsn(path, "_pragma=wal_autocheckpoint(0)"))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec("WITH RECURSIVE c (x) AS (SELECT 101 UNION ALL SELECT x + 1 FROM c WHERE x < 200) INSERT INTO t SELECT x FROM c")
	require.NoError(t, err)
	require.FileExists(t, path+"-shm")
	return db
}

// linksMust calls tool and fails the test if it reports an error.
func linksMust(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	out, isErr := harness.Call(t, cs, tool, args)
	require.False(t, isErr, "%s: %s", tool, out)
	return out
}

// linksNames lists a folder.
func linksNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestBinaryReadsTheRealFileBehindLinks(t *testing.T) {
	cases := []struct {
		name string
		// link spells real from inside other; it returns the --db value
		// and the folder the binary runs in.
		link func(t *testing.T, real, other string) (db, cwd string)
	}{
		{"symbolic link to the file", func(t *testing.T, real, other string) (string, string) {
			require.NoError(t, os.Symlink(real, filepath.Join(other, "link.db")))
			return filepath.Join(other, "link.db"), ""
		}},
		{"symbolic link to its folder", func(t *testing.T, real, other string) (string, string) {
			require.NoError(t, os.Symlink(filepath.Dir(real), filepath.Join(other, "folder")))
			return filepath.Join(other, "folder", "shop.db"), ""
		}},
		{".. after a linked folder", func(t *testing.T, real, other string) (string, string) {
			// other/sub -> <real's folder>/deeper: other/sub/../shop.db is
			// the real file to the system; cleaning the text would give
			// other/shop.db, a decoy with one row.
			deeper := filepath.Join(filepath.Dir(real), "deeper")
			require.NoError(t, os.Mkdir(deeper, 0o755))
			require.NoError(t, os.Symlink(deeper, filepath.Join(other, "sub")))
			mustWriteDecoy(t, filepath.Join(other, "shop.db"))
			return other + "/sub/../shop.db", ""
		}},
		{"relative path to a link", func(t *testing.T, real, other string) (string, string) {
			require.NoError(t, os.Symlink(real, filepath.Join(other, "link.db")))
			return "link.db", other
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			real := filepath.Join(root, folderName, "shop.db")
			other := filepath.Join(root, "other place")
			require.NoError(t, os.MkdirAll(other, 0o755))
			writer := linksLiveWriter(t, real)
			db, cwd := c.link(t, real, other)
			realBefore, otherBefore := linksNames(t, filepath.Dir(real)), linksNames(t, other)

			cmd := e2e.Command(bin, "--db", db, "--read-only")
			cmd.Dir = cwd
			p := e2e.Start(t, cmd)
			count := map[string]any{"query": "SELECT count(*) FROM t"}
			assert.Equal(t, "count(*)\n200\n# 1 rows", linksMust(t, p.Session, "read_query", count), "what a normal reader of the real file sees")
			_, err := writer.Exec("INSERT INTO t VALUES (201)")
			require.NoError(t, err)
			assert.Equal(t, "count(*)\n201\n# 1 rows", linksMust(t, p.Session, "read_query", count), "a live writer's commit is seen")
			assert.Equal(t, "journal_mode\nwal\n# 1 rows", linksMust(t, p.Session, "read_query", map[string]any{"query": "PRAGMA journal_mode"}))
			assert.Equal(t, realBefore, linksNames(t, filepath.Dir(real)), "nothing created beside the real file")
			assert.Equal(t, otherBefore, linksNames(t, other), "nothing created beside the link")
			require.NoError(t, p.Session.Close())
			assert.NotContains(t, p.Stderr.String(), "level=ERROR")
		})
	}
}

// mustWriteDecoy writes a rollback-journal database with one row in t.
func mustWriteDecoy(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, ""))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec("CREATE TABLE t (a); INSERT INTO t VALUES (1)")
	require.NoError(t, err)
}

// linksCopy copies the live database with the given companion files into
// dir, as a user copying files would.
func linksCopy(t *testing.T, from, dir string, suffixes ...string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	to := filepath.Join(dir, "shop.db")
	for _, suffix := range append([]string{""}, suffixes...) {
		b, err := os.ReadFile(from + suffix)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(to+suffix, b, 0o644))
	}
	return to
}

func TestBinaryRefusesWhatItCannotReadFaithfully(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, live, dir string) string
		want []string
	}{
		{"WAL database copied with its -wal but without -shm", func(t *testing.T, live, dir string) string {
			return linksCopy(t, live, dir, "-wal")
		}, []string{"shop.db-wal file holds transactions", "no shop.db-shm", "open the database once read-write"}},
		{"-wal that is a folder", func(t *testing.T, live, dir string) string {
			path := linksCopy(t, live, dir, "-shm")
			require.NoError(t, os.Mkdir(path+"-wal", 0o755))
			return path
		}, []string{"shop.db-wal is not a regular file (a folder)"}},
		{"-wal that is a symbolic link", func(t *testing.T, live, dir string) string {
			path := linksCopy(t, live, dir, "-shm")
			require.NoError(t, os.Symlink(live+"-wal", path+"-wal"))
			return path
		}, []string{"shop.db-wal is not a regular file (a symbolic link)"}},
		{"-shm that is a symbolic link", func(t *testing.T, live, dir string) string {
			path := linksCopy(t, live, dir, "-wal")
			require.NoError(t, os.Symlink(live+"-shm", path+"-shm"))
			return path
		}, []string{"shop.db-shm is not a regular file (a symbolic link)"}},
		{"WAL database with a second hard link", func(t *testing.T, live, dir string) string {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			path := filepath.Join(dir, "shop.db")
			require.NoError(t, os.Link(live, path))
			return path
		}, []string{"2 hard links", "copy the file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			live := filepath.Join(t.TempDir(), "live", "shop.db")
			linksLiveWriter(t, live)
			dir := filepath.Join(t.TempDir(), folderName)
			path := c.make(t, live, dir)
			names, liveNames := linksNames(t, dir), linksNames(t, filepath.Dir(live))
			got := runToExit(t, e2e.Command(bin, "--db", path, "--read-only"))
			assertRefused(t, got, dir, append([]string{"cannot read shop.db in read-only mode"}, c.want...)...)
			assert.NotContains(t, got.stderr, filepath.Dir(live))
			assert.Equal(t, names, linksNames(t, dir), "a refused start creates nothing")
			assert.Equal(t, liveNames, linksNames(t, filepath.Dir(live)), "nor beside the other file")
		})
	}
}

// An --audit-db that is the database, or one of the files SQLite keeps
// beside it, however it is spelled, is refused before anything is written.
func TestBinaryRefusesAnAuditDatabaseThatIsTheDatabase(t *testing.T) {
	cases := []struct {
		name string
		// audit returns the --audit-db value for the database at path, and
		// possibly another --db value (path when "").
		audit func(t *testing.T, path string) (audit, db string)
		names string // the file the message names
	}{
		{"the same path", func(t *testing.T, path string) (string, string) {
			return path, ""
		}, "shop.db"},
		{"the same file through ..", func(t *testing.T, path string) (string, string) {
			return filepath.Dir(path) + "/../" + filepath.Base(filepath.Dir(path)) + "/./shop.db", ""
		}, "shop.db"},
		{"symbolic link to the database", func(t *testing.T, path string) (string, string) {
			link := filepath.Join(t.TempDir(), "audit.db")
			require.NoError(t, os.Symlink(path, link))
			return link, ""
		}, "shop.db"},
		{"hard link to the database", func(t *testing.T, path string) (string, string) {
			// A rollback-journal database may have hard links.
			link := filepath.Join(filepath.Dir(path), "audit.db")
			require.NoError(t, os.Link(path, link))
			return link, ""
		}, "shop.db"},
		{"the database through .. and a linked folder", func(t *testing.T, path string) (string, string) {
			other := t.TempDir()
			require.NoError(t, os.Symlink(filepath.Dir(path), filepath.Join(other, "folder")))
			// Not filepath.Join, which would clean "folder/.." away.
			return other + "/folder/../" + filepath.Base(filepath.Dir(path)) + "/shop.db", ""
		}, "shop.db"},
		{"the database through a linked folder", func(t *testing.T, path string) (string, string) {
			other := t.TempDir()
			require.NoError(t, os.Symlink(filepath.Dir(path), filepath.Join(other, "folder")))
			return filepath.Join(other, "folder", "shop.db"), ""
		}, "shop.db"},
		{"the database's -wal file", func(t *testing.T, path string) (string, string) {
			return path + "-wal", ""
		}, "shop.db-wal"},
		{"the database's -shm file, through a link", func(t *testing.T, path string) (string, string) {
			other := t.TempDir()
			require.NoError(t, os.Symlink(filepath.Dir(path), filepath.Join(other, "folder")))
			return filepath.Join(other, "folder", "shop.db-shm"), ""
		}, "shop.db-shm"},
		{"the database's -journal file", func(t *testing.T, path string) (string, string) {
			return path + "-journal", ""
		}, "shop.db-journal"},
		{"a file whose own -wal is the database", func(t *testing.T, path string) (string, string) {
			db := filepath.Join(filepath.Dir(path), "audit-wal")
			require.NoError(t, os.Rename(path, db))
			return filepath.Join(filepath.Dir(path), "audit"), db
		}, "audit-wal"},
		{"another letter case", func(t *testing.T, path string) (string, string) {
			return filepath.Join(filepath.Dir(path), "SHOP.DB-WAL"), ""
		}, "shop.db-wal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), folderName)
			path := filepath.Join(dir, "shop.db")
			mustWriteShop(t, path, "delete", newShop())
			audit, db := c.audit(t, path)
			if db == "" {
				db = path
			}
			before := stateOf(t, db)
			_, statErr := os.Lstat(audit)
			got := runToExit(t, e2e.Command(bin, "--db", db, "--read-only", "--audit-db", audit))
			assert.Equal(t, 2, got.code, got.stderr)
			assert.Empty(t, got.stdout)
			assert.Contains(t, got.stderr, "--audit-db must be another file than --db")
			assert.Contains(t, got.stderr, "names "+c.names)
			assert.Len(t, e2e.Messages(got.stderr), 1, "one line besides the start-up's log records: %s", got.stderr)
			assert.NotContains(t, got.stderr, dir)
			assert.Equal(t, before, stateOf(t, db), "the database is exactly as before")
			if statErr != nil {
				assert.NoFileExists(t, audit, "no audit file was created")
			}
		})
	}
}

// In read-only mode no snapshot is ever taken, so --snapshot-dir is
// ignored: the folder is not created and nothing is written into it.
func TestBinaryIgnoresTheSnapshotFolderInReadOnlyMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	path := filepath.Join(dir, "shop.db")
	mustServerShop(t, path, newShop())
	before := stateOf(t, path)
	snaps := filepath.Join(t.TempDir(), "snaps")
	p := e2e.Start(t, e2e.Command(bin, "--db", path, "--read-only", "--snapshot-dir", snaps))
	for _, tool := range []string{"list_tables", "get_schema", "verify_chain"} {
		linksMust(t, p.Session, tool, nil)
	}
	require.NoError(t, p.Session.Close())
	assert.NoDirExists(t, snaps)
	assert.Equal(t, before, stateOf(t, path))
}

func TestBinaryRefusesToReadAReplacedFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	path := filepath.Join(dir, "shop.db")
	mustServerShop(t, path, newShop())
	p := e2e.Start(t, e2e.Command(bin, "--db", path, "--read-only"))
	count := map[string]any{"query": "SELECT count(*) FROM customers"}
	assert.Equal(t, "count(*)\n150\n# 1 rows", linksMust(t, p.Session, "read_query", count))

	other := filepath.Join(t.TempDir(), "other.db")
	mustWriteDecoy(t, other)
	require.NoError(t, os.Rename(other, path))
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"read_query", count}, {"list_tables", nil}, {"verify_chain", nil}} {
		out, isErr := harness.Call(t, p.Session, call.tool, call.args)
		assert.True(t, isErr, "%s: %s", call.tool, out)
		assert.Contains(t, out, "shop.db was replaced, moved or deleted after this read-only session opened it; restart the server")
		assert.NotContains(t, out, dir)
	}
}

// A -wal file beside a link belongs to no database: SQLite uses the one
// beside the real file. On a cleanly closed WAL database reached through
// such a link, the session reads the real file alone and creates no -wal
// or -shm beside it.
func TestBinaryIgnoresAWALBesideTheLink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, folderName, "shop.db")
	mustServerShop(t, real, newShop())
	other := filepath.Join(root, "other place")
	require.NoError(t, os.MkdirAll(other, 0o755))
	link := filepath.Join(other, "shop.db")
	require.NoError(t, os.Symlink(real, link))
	require.NoError(t, os.WriteFile(link+"-wal", nil, 0o644))
	before, otherBefore := stateOf(t, real), linksNames(t, other)

	p := e2e.Start(t, e2e.Command(bin, "--db", link, "--read-only"))
	assert.Equal(t, "count(*)\n150\n# 1 rows", linksMust(t, p.Session, "read_query", map[string]any{"query": "SELECT count(*) FROM customers"}))
	assert.Equal(t, "journal_mode\nwal\n# 1 rows", linksMust(t, p.Session, "read_query", map[string]any{"query": "PRAGMA journal_mode"}),
		"the truth, where SQLite would say delete for a WAL database read without its -wal")
	out, isErr := harness.Call(t, p.Session, "read_query", map[string]any{"query": "SELECT * FROM pragma_journal_mode"})
	assert.True(t, isErr, "SQLite would answer delete for a WAL database read without its -wal: %s", out)
	assert.Contains(t, out, "shop.db is a WAL database (journal_mode wal)")
	assert.Equal(t, before.Files, stateOf(t, real).Files, "no -wal or -shm beside the real file")
	require.NoError(t, p.Session.Close())
	assert.Equal(t, before, stateOf(t, real))
	assert.Equal(t, otherBefore, linksNames(t, other))
}

// The database's snapshot folders belong to its read-write sessions, which
// rotate files there: an audit database is refused inside them.
func TestBinaryRefusesAnAuditDatabaseAmongTheSnapshots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	path := filepath.Join(dir, "shop.db")
	mustWriteShop(t, path, "delete", newShop())
	snaps := filepath.Join(t.TempDir(), "snaps")
	for name, args := range map[string][]string{
		"default snapshot folder": {"--audit-db", filepath.Join(dir, "shop.snapshots", "audit.db")},
		"--snapshot-dir":          {"--snapshot-dir", snaps, "--audit-db", filepath.Join(snaps, "audit.db")},
	} {
		t.Run(name, func(t *testing.T) {
			before := stateOf(t, path)
			got := runToExit(t, e2e.Command(bin, append([]string{"--db", path, "--read-only"}, args...)...))
			assert.Equal(t, 2, got.code, got.stderr)
			assert.Contains(t, got.stderr, "--audit-db must not be inside the database's snapshot folder")
			assert.NotContains(t, got.stderr, dir)
			assert.Equal(t, before, stateOf(t, path))
			assert.NoDirExists(t, filepath.Join(dir, "shop.snapshots"))
			assert.NoDirExists(t, snaps)
		})
	}
}
