package tools_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// engines are the searchers search_text must behave identically with.
func engines(t *testing.T) map[string]ports.TextSearcher {
	t.Helper()
	out := map[string]ports.TextSearcher{"regexp2": regexp2.New()}
	rg, err := exec.LookPath("rg")
	switch {
	case err == nil:
		out["ripgrep"] = ripgrep.New(rg)
	case os.Getenv("CI") != "":
		t.Fatalf("CI must run search_text with ripgrep too: %v", err)
	default:
		t.Logf("rg not on PATH: checking the regexp2 engine only")
	}
	return out
}

func searchEnv(t *testing.T, s ports.TextSearcher, l domain.Limits) *harness.Env {
	t.Helper()
	env := harness.New(t, harness.Config{Search: s, Limits: l})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT, n INTEGER)"})
	env.MustCall(t, "write_query", map[string]any{"query": `INSERT INTO notes (title, body, n) VALUES
		('alpha', 'a note about apples', 1),
		('beta', 'Bananas and APPLE pie' || char(10) || 'second line', 2),
		('gamma', NULL, 3),
		('délta', 'café crème brûlée', 4)`})
	return env
}

func TestSearchTextThroughMCP(t *testing.T) {
	for name, engine := range engines(t) {
		t.Run(name, func(t *testing.T) {
			env := searchEnv(t, engine, domain.DefaultLimits())
			call := func(args map[string]any) string {
				args["table"] = "notes"
				return env.MustCall(t, "search_text", args)
			}
			assert.Equal(t, "key,column,snippet\n1,body,...ote about apples\n# 1 of 1 matching values in 1 rows (4 candidate rows x 2 columns scanned)",
				call(map[string]any{"pattern": "apple", "context_chars": 10}))
			assert.Equal(t, "key,column,snippet\n1,body,...ote about apples\n2,body,...nanas and APPLE pie⏎secon...\n# 2 of 2 matching values in 2 rows (4 candidate rows x 2 columns scanned)",
				call(map[string]any{"pattern": "apple", "ignore_case": true, "context_chars": 10}))
			assert.Equal(t, "key,column,snippet\n2,body,...and APPLE pie...\n# 1 of 1 matching values in 1 rows (1 candidate rows x 1 columns scanned)",
				call(map[string]any{"pattern": "APPLE", "where": "n = 2", "columns": []any{"BODY"}, "context_chars": 4}))
			assert.Equal(t, "key,column,snippet\n2,body,... pie⏎seco...\n# 1 of 1 matching values in 1 rows (4 candidate rows x 2 columns scanned)",
				call(map[string]any{"pattern": "e⏎s", "fixed_strings": true, "context_chars": 3}), "a newline inside a value is searched as ⏎")
			assert.Equal(t, "key,column,snippet\n4,body,...é crème b...\n# 1 of 1 matching values in 1 rows (4 candidate rows x 2 columns scanned)",
				call(map[string]any{"pattern": "crème", "context_chars": 2}), "context counts characters, never splitting UTF-8")
			assert.Equal(t, "key,column,snippet\n# 0 of 0 matching values in 0 rows (4 candidate rows x 2 columns scanned)",
				call(map[string]any{"pattern": "a.b", "fixed_strings": true}))
			keyed := call(map[string]any{"pattern": "^b", "key_column": "TITLE"})
			assert.Equal(t, "key,column,snippet\nbeta,title,beta\n# 1 of 1 matching values in 1 rows (4 candidate rows x 2 columns scanned)", keyed)
		})
	}
}

func TestSearchTextErrors(t *testing.T) {
	env := searchEnv(t, regexp2.New(), domain.DefaultLimits())
	env.MustCall(t, "create_view", map[string]any{"name": "v", "select_sql": "SELECT id, body FROM notes"})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE nums (a INTEGER, b REAL)"})
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "", "table": "notes"}, "pattern must not be empty"},
		{map[string]any{"pattern": "x", "table": "nope"}, "no table or view named 'nope'; use list_tables"},
		{map[string]any{"pattern": "x", "table": "notes", "columns": []any{"nope"}}, "unknown column(s) ['nope'] in notes; available: ['id', 'title', 'body', 'n']"},
		{map[string]any{"pattern": "x", "table": "notes", "key_column": "nope"}, "key_column 'nope' is not a column of notes"},
		{map[string]any{"pattern": "x", "table": "v"}, "views have no rowid; pass key_column"},
		{map[string]any{"pattern": "x", "table": "nums"}, "nums has no text columns; pass columns=[...] explicitly"},
		{map[string]any{"pattern": "(", "table": "notes"}, "("},
		{map[string]any{"pattern": "x", "table": "notes", "where": "1=1; DELETE FROM notes"}, ""},
		{map[string]any{"pattern": "x", "table": "notes", "where": "id IN (SELECT load_extension('x'))"}, "load_extension"},
		{map[string]any{"pattern": "x", "table": "notes", "context_chars": 5000}, "context_chars"},
	}
	for _, c := range cases {
		assert.Contains(t, env.MustFail(t, "search_text", c.args), c.want, c.args)
	}
	assert.Contains(t, env.MustCall(t, "search_text", map[string]any{"pattern": "apples", "table": "v", "key_column": "id"}), "\n1,body,")
	assert.Equal(t, "n\n4\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM notes"}), "nothing was deleted")
}

func TestSearchTextCandidateCapCannotBeLifted(t *testing.T) {
	l := domain.DefaultLimits()
	l.SearchCandidates = 3
	env := searchEnv(t, regexp2.New(), l)
	// The WHERE text tries to replace the cap: a UNION with its own LIMIT,
	// parentheses balanced around the server's closing one.
	where := "1) UNION ALL SELECT * FROM (SELECT 9, 'a', 'a' FROM notes, notes, notes LIMIT 1000 --"
	out := env.MustCall(t, "search_text", map[string]any{"pattern": "a", "table": "notes", "where": where, "limit": 50})
	require.Contains(t, out, "(3 candidate rows x 2 columns scanned); candidate cap of 3 rows hit, tighten the WHERE filter", out)
	assert.LessOrEqual(t, strings.Count(out, "\n"), 1+3*2)
}
