// Package tools_test exercises every tool through a real MCP client over the
// SDK's in-memory transports, against a real SQLite file.
package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

func seeded(t *testing.T) *harness.Env {
	t.Helper()
	env := harness.New(t, harness.Config{})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO notes (title, body) VALUES ('alpha', 'a note about apples'), ('beta', 'bananas'), ('gamma', NULL)"})
	return env
}

func TestToolsAreListedWithAnnotationsAndSchemas(t *testing.T) {
	env := harness.New(t, harness.Config{})
	res, err := env.Client.ListTools(context.Background(), nil)
	require.NoError(t, err)
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	// What clients should ask about (MCP: destructiveHint "may perform
	// destructive updates", false means only additive ones): write_query's
	// UPDATE/REPLACE overwrite rows and create_view(replace) redefines a view.
	type hints struct {
		title                             string
		readOnly, destructive, idempotent bool
	}
	want := map[string]hints{
		"read_query":         {"Read query", true, false, true},
		"list_tables":        {"List tables", true, false, true},
		"describe_table":     {"Describe table", true, false, true},
		"get_schema":         {"Get schema", true, false, true},
		"verify_chain":       {"Verify memory chain", true, false, true},
		"get_resume_context": {"Resume from memory", true, false, true},
		"search_text":        {"Search text", true, false, true},
		"search_memory":      {"Search memory", true, false, true},
		"write_query":        {"Write query", false, true, false},
		"create_view":        {"Create view", false, true, false},
		"destructive_query":  {"Destructive query (snapshots first)", false, true, false},
		"append_event":       {"Append memory event", false, false, false},
		"retract_event":      {"Retract memory event", false, false, false},
		"checkpoint":         {"Checkpoint memory", false, false, false},
		"snapshot":           {"Snapshot database", false, false, false},
	}
	assert.Len(t, got, len(want))
	for name, h := range want {
		tool := got[name]
		if !assert.NotNil(t, tool, name) {
			continue
		}
		assert.Equal(t, h.title, tool.Title, name)
		a := tool.Annotations
		require.NotNil(t, a, name)
		assert.Equal(t, h.title, a.Title, name)
		assert.Equal(t, h.readOnly, a.ReadOnlyHint, name)
		require.NotNil(t, a.DestructiveHint, name)
		assert.Equal(t, h.destructive, *a.DestructiveHint, name)
		assert.Equal(t, h.idempotent, a.IdempotentHint, name)
		require.NotNil(t, a.OpenWorldHint, name)
		assert.False(t, *a.OpenWorldHint, name)
		assert.NotEmpty(t, tool.Description, name)
		schema, ok := tool.InputSchema.(map[string]any)
		require.True(t, ok, name)
		props, _ := schema["properties"].(map[string]any)
		for pname, p := range props {
			desc, _ := p.(map[string]any)["description"].(string)
			assert.NotEmpty(t, desc, "%s.%s has no description", name, pname)
			// One plain type per property: a union such as
			// ["null","array"] makes some clients send a string.
			assert.IsType(t, "", p.(map[string]any)["type"], "%s.%s has type %v", name, pname, p.(map[string]any)["type"])
		}
	}
	columns := got["search_text"].InputSchema.(map[string]any)["properties"].(map[string]any)["columns"].(map[string]any)
	assert.Equal(t, "array", columns["type"])
	assert.Equal(t, map[string]any{"type": "string"}, columns["items"])
	assert.Contains(t, got["read_query"].Description, "write_query")
	assert.Contains(t, got["write_query"].Description, "destructive_query")
	assert.Contains(t, got["destructive_query"].Description, "write_query")
	limit := got["read_query"].InputSchema.(map[string]any)["properties"].(map[string]any)["limit"].(map[string]any)
	assert.EqualValues(t, 100, limit["default"])
	assert.EqualValues(t, 1, limit["minimum"])
	assert.EqualValues(t, 1000, limit["maximum"])
}

func TestReadQueryCSVAndTrailer(t *testing.T) {
	env := seeded(t)
	assert.Equal(t, "id,title\n1,alpha\n2,beta\n3,gamma\n# 3 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT id, title FROM notes ORDER BY id"}))
	assert.Equal(t, "id,title\n1,alpha\n2,beta\n# 2 rows, truncated by limit=2 (more rows exist; next page: offset=2; raise limit up to 1000 or narrow the query)",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT id, title FROM notes ORDER BY id", "limit": 2}))
	assert.Equal(t, "id,title\n3,gamma\n# 1 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT id, title FROM notes ORDER BY id", "limit": 2, "offset": 2}))
	assert.Equal(t, "count(*)\n3\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) FROM notes"}))
	// NULL is an empty cell (a lone NULL an empty line), the empty string "".
	assert.Equal(t, "body\n\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT body FROM notes WHERE id = 3"}))
	assert.Equal(t, "e\n\"\"\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT '' AS e"}))
	assert.Equal(t, "n,e,x\n,\"\",1\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT NULL AS n, '' AS e, 1 AS x"}))
	assert.Equal(t, "a,b,c,d\n1e-05,1e+16,-0.0,\"x,\"\"y\"\"\"\n# 1 rows",
		env.MustCall(t, "read_query", map[string]any{"query": `SELECT 1e-5 AS a, 1e16 AS b, -0.0 AS c, 'x,"y"' AS d`}))
}

func TestArgumentErrorsNameTheArgumentAndAreAudited(t *testing.T) {
	env := seeded(t)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_query", map[string]any{"query": "SELECT 1", "limit": 0}, "limit must be between 1 and 1000"},
		{"read_query", map[string]any{"query": "SELECT 1", "limit": "ten"}, `"limit" must be an integer`},
		{"read_query", map[string]any{"limit": 3}, `missing required argument "query"`},
		{"read_query", map[string]any{"query": "SELECT 1", "sql": "x"}, `"query" and "sql" are the same argument`},
		{"read_query", map[string]any{"query": "SELECT 1", "limits": 3}, `unknown argument "limits"; did you mean "limit"?`},
		{"get_resume_context", map[string]any{"max_events": 5000}, "max_events must be between 1 and 1000"},
	}
	for _, c := range cases {
		assert.Contains(t, env.MustFail(t, c.tool, c.args), c.want)
	}
	out := env.MustCall(t, "read_query", map[string]any{"query": "SELECT tool, error FROM query_log WHERE ok = 0 ORDER BY id"})
	assert.Equal(t, len(cases)+1, strings.Count(out, "\n"), out)
}

func TestPolicyErrorsSayWhatToUse(t *testing.T) {
	env := seeded(t)
	assert.Equal(t, "INSERT is not allowed in read_query; use write_query",
		env.MustFail(t, "read_query", map[string]any{"query": "INSERT INTO notes(title) VALUES ('x')"}))
	assert.Contains(t, env.MustFail(t, "write_query", map[string]any{"query": "DELETE FROM notes"}), "use destructive_query")
	assert.Contains(t, env.MustFail(t, "write_query", map[string]any{"query": "CREATE VIEW v AS SELECT 1"}), "create_view")
	assert.Equal(t, "SQLite error: no such table: nope", env.MustFail(t, "read_query", map[string]any{"query": "SELECT * FROM nope"}))
}

func TestListDescribeSchema(t *testing.T) {
	env := seeded(t)
	assert.Equal(t, "name,type,system,rows\nmemory_checkpoints,table,1,0\nmemory_events,table,1,0\nmemory_fts,table,1,0\nnotes,table,0,3\nquery_log,table,1,2\nquery_errors,view,1,\n# 6 rows",
		env.MustCall(t, "list_tables", nil), "the two seeding writes are logged; this call's own row is not yet")
	out := env.MustCall(t, "describe_table", map[string]any{"table": "NOTES"})
	assert.Contains(t, out, "# columns\ncid,name,type,notnull,default,pk\n0,id,INTEGER,0,,1\n1,title,TEXT,1,,0\n2,body,TEXT,0,,0")
	assert.Contains(t, out, "# rows\n3")
	assert.Contains(t, out, "# sql\nCREATE TABLE notes")
	assert.Equal(t, "no table or view named 'nope'; use list_tables", env.MustFail(t, "describe_table", map[string]any{"table": "nope"}))
	schema := env.MustCall(t, "get_schema", nil)
	assert.True(t, strings.HasPrefix(schema, "-- 1 objects (12 server objects hidden; include_system=true shows them)\n\nCREATE TABLE notes"), schema)
	all := env.MustCall(t, "get_schema", map[string]any{"include_system": true})
	assert.Contains(t, all, "CREATE TABLE memory_events")
	assert.Contains(t, all, "-- description: failed tool calls")
}

func TestFreshServerListsEmptyQueryLog(t *testing.T) {
	env := harness.New(t, harness.Config{})
	assert.Contains(t, env.MustCall(t, "list_tables", nil), "\nquery_log,table,1,0\n")
}

func TestInternalNamesAreHiddenByExactPrefixOnly(t *testing.T) {
	env := harness.New(t, harness.Config{})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE sqlitedata (a)"})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE SQLiteNotes (a)"})
	out := env.MustCall(t, "list_tables", map[string]any{"include_row_counts": false})
	assert.Contains(t, out, "\nsqlitedata,table,0,\n")
	assert.Contains(t, out, "\nSQLiteNotes,table,0,\n")
}

func TestErrorsAreTyped(t *testing.T) {
	// The harness sees text; this pins that domain errors carry kinds too.
	err := domain.Errorf(domain.ErrPolicy, "x")
	assert.ErrorIs(t, err, domain.ErrPolicy)
}

// TestGenerateSeriesIsAnsweredWithACTEThatWorks: the first table people
// reach for to make test data is not built in; the error names the
// statement to use instead, and that statement runs as given, also as an
// INSERT's source.
func TestGenerateSeriesIsAnsweredWithACTEThatWorks(t *testing.T) {
	env := seeded(t)
	for _, sql := range []string{"SELECT * FROM generate_series(1, 10)", "SELECT value FROM GENERATE_SERIES(1,3)"} {
		msg := env.MustFail(t, "read_query", map[string]any{"query": sql})
		_, cte, ok := strings.Cut(msg, "recursive CTE instead: ")
		require.True(t, ok, msg)
		out := env.MustCall(t, "read_query", map[string]any{"query": cte, "limit": 1000})
		assert.True(t, strings.HasPrefix(out, "value\n1\n2\n"), out)
		assert.Contains(t, out, "\n100\n# 100 rows", out)
		env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE IF NOT EXISTS gs (n)"})
		assert.Contains(t, env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO gs " + cte}), "100 rows affected")
	}
	assert.Equal(t, "SQLite error: no such table: nope", env.MustFail(t, "read_query", map[string]any{"query": "SELECT * FROM nope"}), "other tables get no hint")
}
