package readonly_test

import (
	"encoding/hex"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// Read-only mode names no absolute path (docs/decisions.md#policy-gaps-closed): no answer and no
// error of any tool holds the database's folder, in any spelling a query
// could give it. The one pragma that names the file, database_list, is
// refused at the policy level, so transformed values (substr, hex, replace,
// unicode, joins) never leave SQLite either.

// pathsDatabaseList are the ways a query can reach PRAGMA database_list.
var pathsDatabaseList = []string{
	"PRAGMA database_list",
	"PRAGMA main.database_list",
	"pragma DATABASE_LIST",
	"EXPLAIN PRAGMA database_list",
	"SELECT file FROM pragma_database_list",
	"SELECT * FROM pragma_database_list WHERE name = 'main'",
	"SELECT name FROM pragma_database_list",
	"SELECT substr(file, 2) FROM pragma_database_list",
	"SELECT hex(file) FROM pragma_database_list",
	"SELECT replace(file, '/', 'x') FROM pragma_database_list",
	"SELECT unicode(substr(file, 1, 1)), length(file) FROM pragma_database_list",
	"SELECT quote(file) FROM main.pragma_database_list()",
	"SELECT d.file FROM sqlite_schema s JOIN pragma_database_list d ON 1",
	"SELECT (SELECT file FROM pragma_database_list) AS f",
	"WITH d AS (SELECT file FROM pragma_database_list) SELECT group_concat(unicode(substr(file, n, 1))) FROM d, (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 200) SELECT n FROM c)",
	"SELECT * FROM (SELECT * FROM pragma_database_list) ORDER BY 1",
	"SELECT id FROM customers WHERE EXISTS (SELECT 1 FROM pragma_database_list WHERE file LIKE '/%')",
}

// pathsOther are other statements that could name a file; they may be
// answered or refused, but nothing they return holds the folder.
var pathsOther = []string{
	"PRAGMA temp_store_directory",
	"SELECT * FROM pragma_temp_store_directory",
	"PRAGMA data_store_directory",
	"SELECT sqlite_source_id(), sqlite_version()",
	"SELECT * FROM pragma_compile_options",
	"SELECT * FROM pragma_table_list",
	"SELECT hex(data) FROM sqlite_dbpage WHERE pgno = 1",
	"SELECT * FROM dbstat LIMIT 3",
	"SELECT * FROM no_such_table",
	"SELECT * FROM",
	"ATTACH 'other.db' AS other",
	"SELECT load_extension('libnothing')",
	"SELECT json('{')",
	"PRAGMA integrity_check",
	"PRAGMA journal_mode",
}

// pathsSpellings are the folder as text a leak could hold.
func pathsSpellings(dir string) []string {
	return []string{
		dir,
		dir[1:],
		strings.ToUpper(hex.EncodeToString([]byte(dir))),
		hex.EncodeToString([]byte(dir)),
		strings.ReplaceAll(dir, "/", "x"),
		url.PathEscape(dir),
		(&url.URL{Path: dir}).EscapedPath(),
	}
}

func TestBinaryNamesNoAbsolutePathInReadOnlyMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	path := filepath.Join(dir, "shop.db")
	mustServerShop(t, path, newShop())
	before := stateOf(t, path)
	p := e2e.Start(t, e2e.Command(bin, "--db", path, "--read-only"))
	spellings := pathsSpellings(dir)
	check := func(what, out string) {
		t.Helper()
		for _, s := range spellings {
			assert.NotContains(t, out, s, "%s: the folder, spelled %q", what, s)
		}
	}

	for _, q := range pathsDatabaseList {
		out, isErr := harness.Call(t, p.Session, "read_query", map[string]any{"query": q})
		assert.True(t, isErr, "%s must be refused: %s", q, out)
		assert.Contains(t, strings.ToLower(out), "database_list is not allowed: it shows the database file's absolute path", q)
		check(q, out)
	}
	for _, q := range pathsOther {
		out, _ := harness.Call(t, p.Session, "read_query", map[string]any{"query": q})
		check(q, out)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_tables", nil},
		{"describe_table", map[string]any{"table": "customers"}},
		{"describe_table", map[string]any{"table": "nope"}},
		{"get_schema", nil},
		{"search_text", map[string]any{"pattern": "a", "table": "customers"}},
		{"search_text", map[string]any{"pattern": "(", "table": "customers"}},
		{"search_text", map[string]any{"pattern": "a", "table": "nope"}},
		{"search_text", map[string]any{"pattern": "a", "table": "customers", "where": "file IN (SELECT file FROM pragma_database_list)"}},
		{"verify_chain", nil},
		{"get_resume_context", nil},
		{"read_query", map[string]any{"query": "SELECT 1", "limit": 0}},
	} {
		out, _ := harness.Call(t, p.Session, c.tool, c.args)
		check(c.tool, out)
	}
	require.NoError(t, p.Session.Close())
	check("stderr audit lines", strings.Join(auditJSON(p.Stderr.String()), "\n"))
	assert.Equal(t, before, stateOf(t, path))
}

// auditJSON returns stderr's JSON lines (the audit trail the agent's
// operator reads); the log lines, which name the database for the operator,
// are not part of any answer.
func auditJSON(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "{") {
			out = append(out, line)
		}
	}
	return out
}

// The pragma is refused in write mode too: no answer may echo an
// absolute path other than a snapshot's (docs/decisions.md#errors).
func TestBinaryRefusesDatabaseListInWriteMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	p := e2e.Start(t, e2e.Command(bin, "--db", filepath.Join(dir, "memory.db")))
	for _, q := range pathsDatabaseList[:6] {
		out, isErr := harness.Call(t, p.Session, "read_query", map[string]any{"query": q})
		assert.True(t, isErr, "%s: %s", q, out)
		assert.NotContains(t, out, dir)
	}
}
