package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

func TestWriteQueryResults(t *testing.T) {
	env := seeded(t)
	assert.Equal(t, "ok: 1 rows affected (last_insert_rowid=4)\nid,title\n4,eps\n# 1 rows",
		env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO notes (title) VALUES ('eps') RETURNING id, title"}))
	assert.Equal(t, "ok: 2 rows affected",
		env.MustCall(t, "write_query", map[string]any{"query": "UPDATE notes SET body = 'x' WHERE id <= 2"}))
	assert.Equal(t, "ok: 4 rows affected",
		env.MustCall(t, "write_query", map[string]any{"query": "WITH s AS (SELECT 1) UPDATE notes SET body = 'y'"}))
	assert.Equal(t, "ok: schema statement executed",
		env.MustCall(t, "write_query", map[string]any{"query": "CREATE INDEX notes_title ON notes(title)"}))
	assert.Equal(t, "ok: statement executed\na\n1\n# 1 rows",
		env.MustCall(t, "write_query", map[string]any{"query": "SELECT 1 AS a"}))
}

func TestUpdateGuardRollsBack(t *testing.T) {
	l := domain.DefaultLimits()
	l.MaxUpdateRows = 2
	env := harness.New(t, harness.Config{Limits: l})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE, n INT DEFAULT 0)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO t(v) VALUES ('a'), ('b'), ('c')"})
	for _, q := range []string{
		"UPDATE t SET n = 1",
		"WITH x AS (SELECT 1) UPDATE t SET n = 1",
		"REPLACE INTO t(id, v) SELECT id, v FROM t",
		"INSERT INTO t(v) SELECT v FROM t WHERE true ON CONFLICT(v) DO UPDATE SET n = n + 1",
	} {
		msg := env.MustFail(t, "write_query", map[string]any{"query": q})
		assert.Equal(t, "UPDATE would change 3 rows, above the write_query cap of 2; rolled back. Add a WHERE clause, or use destructive_query if you really mean every row.", msg, q)
	}
	assert.Equal(t, "n\n0\n0\n0\n# 3 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT n FROM t ORDER BY id"}))
	assert.Contains(t, env.MustCall(t, "destructive_query", map[string]any{"query": "UPDATE t SET n = 5", "reason": "reset all counters"}), "ok: 3 rows affected; nobody was asked")
}

var snapshotName = regexp.MustCompile(`^test\.\d{8}T\d{6}\.\d{3}Z(\.\d+)?\.db$`)

func TestDestructiveQuerySnapshotsFirst(t *testing.T) {
	env := seeded(t)
	assert.Equal(t, "reason is required: say why this destructive change is needed",
		env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "  "}))
	assert.Equal(t, "SQLite error: no such table: nope",
		env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM nope", "reason": "cleanup"}))
	assert.Contains(t, env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM query_log", "reason": "cleanup"}), "append-only")
	snapDir := filepath.Join(env.Dir, "test.snapshots")
	assert.NoDirExists(t, snapDir, "failed preflights cost no snapshot")

	out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "remove the alpha note"})
	require.True(t, strings.HasPrefix(out, "ok: 1 rows affected; nobody was asked to approve it (the client cannot ask (no elicitation) and --confirm-fallback is snapshot); snapshot: "), out)
	_, path, _ := strings.Cut(out, "; snapshot: ")
	assert.True(t, filepath.IsAbs(path))
	assert.Regexp(t, snapshotName, filepath.Base(path))
	assert.Equal(t, snapDir, filepath.Dir(path))
	assert.FileExists(t, path)
	assert.Equal(t, "n\n2\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM notes"}))
	audit := env.MustCall(t, "read_query", map[string]any{"query": "SELECT detail FROM query_log WHERE tool = 'destructive_query' AND ok = 1"})
	assert.Contains(t, audit, `""reason"": ""remove the alpha note"", ""snapshot"": ""`+path)
}

func TestDestructiveQueryFailsClosedWithoutSnapshot(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	require.NoError(t, os.WriteFile(blocker, []byte("a file where the snapshot folder should be"), 0o644))
	env := harness.New(t, harness.Config{SnapshotDir: blocker})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE t (a)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1)"})
	msg := env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM t", "reason": "test"})
	assert.Contains(t, msg, "snapshot")
	assert.Contains(t, msg, "not run")
	assert.Equal(t, "a\n1\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT a FROM t"}), "nothing ran")
	assert.Contains(t, env.MustFail(t, "snapshot", nil), "snapshot")
}

func TestSnapshotTool(t *testing.T) {
	env := seeded(t)
	out := env.MustCall(t, "snapshot", nil)
	require.True(t, strings.HasPrefix(out, "ok: snapshot written: "), out)
	assert.FileExists(t, strings.TrimPrefix(out, "ok: snapshot written: "))
	l := domain.DefaultLimits()
	l.Snapshots = 0
	off := harness.New(t, harness.Config{Limits: l})
	assert.Contains(t, off.MustCall(t, "snapshot", map[string]any{"reason": "x"}), "ok: snapshot skipped")
	off.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE t (a)"})
	assert.Equal(t, "ok: schema statement executed; nobody was asked to approve it (the client cannot ask (no elicitation) and --confirm-fallback is snapshot); snapshots are disabled",
		off.MustCall(t, "destructive_query", map[string]any{"query": "DROP TABLE t", "reason": "gone"}))
}

func TestCreateView(t *testing.T) {
	env := seeded(t)
	assert.Equal(t, "ok: view recent created", env.MustCall(t, "create_view", map[string]any{
		"name": "recent", "select_sql": "SELECT id, title FROM notes ORDER BY id DESC;", "description": "newest   notes\nfirst"}))
	assert.Contains(t, env.MustCall(t, "get_schema", nil),
		"CREATE VIEW \"recent\" AS\n-- description: newest notes first\nSELECT id, title FROM notes ORDER BY id DESC;")
	assert.Equal(t, "id,title\n3,gamma\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT * FROM recent", "limit": 1})[:len("id,title\n3,gamma\n")]+"# 1 rows")
	assert.Equal(t, "view 'recent' already exists; pass replace=true to redefine it",
		env.MustFail(t, "create_view", map[string]any{"name": "recent", "select_sql": "SELECT 1"}))
	assert.Equal(t, "ok: view recent replaced; the previous definition is kept in query_log",
		env.MustCall(t, "create_view", map[string]any{"name": "recent", "select_sql": "SELECT 2 AS two", "replace": true}))
	prev := env.MustCall(t, "read_query", map[string]any{"query": "SELECT detail FROM query_log WHERE tool = 'create_view' AND ok = 1 ORDER BY id DESC LIMIT 1"})
	assert.Contains(t, prev, `""replaced"": true, ""previous_sql"": ""CREATE VIEW \""recent\"" AS`)
	for _, c := range []struct{ name, sql, want string }{
		{"notes", "SELECT 1", "a table named 'notes' already exists; pick another name"},
		{"query_errors", "SELECT 1", "server"},
		{"QUERY_LOG", "SELECT 1", "server"},
		{"1bad", "SELECT 1", "view name must match"},
		{"v", "DELETE FROM notes", "DELETE is not allowed in create_view's SELECT"},
		{"v", "PRAGMA table_info(notes)", "create_view's select_sql must be one SELECT"},
		{"v", " ; ", "select_sql must not be empty"},
		{"v", "SELECT 1; DROP TABLE notes", "one statement"},
	} {
		assert.Contains(t, env.MustFail(t, "create_view", map[string]any{"name": c.name, "select_sql": c.sql, "replace": true}), c.want, c.name+": "+c.sql)
	}
	assert.Contains(t, env.MustCall(t, "get_schema", map[string]any{"include_system": true}), "CREATE VIEW query_errors AS\n-- description: failed tool calls")
}

func TestTwoServersWriteConcurrently(t *testing.T) {
	a := harness.New(t, harness.Config{})
	a.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT)"})
	b := harness.New(t, harness.Config{DBPath: a.DBPath})
	done := make(chan error, 2)
	for _, env := range []*harness.Env{a, b} {
		go func() {
			for i := 0; i < 50; i++ {
				if _, err := env.Tools.WriteQuery(context.Background(), domain.WriteQueryRequest{Query: "INSERT INTO t(who) VALUES ('x')"}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(60 * time.Second):
			t.Fatal("writers did not finish")
		}
	}
	assert.Equal(t, "n\n100\n# 1 rows", a.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM t"}))
}
