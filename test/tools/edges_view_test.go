package tools_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCreateViewRefusalsNameCreateView: the SELECT of create_view is checked
// under read_query's tier, but no refusal may send the agent to read_query
// as if it had called it; each names create_view or the view's SELECT.
func TestCreateViewRefusalsNameCreateView(t *testing.T) {
	env := seeded(t)
	for _, sql := range []string{
		"DELETE FROM notes",
		"INSERT INTO notes(title) VALUES ('x')",
		"UPDATE notes SET title = 'y'",
		"WITH x AS (SELECT 1) INSERT INTO notes(title) SELECT * FROM x",
		"REPLACE INTO notes(id, title) VALUES (1, 'z')",
		"CREATE TABLE t2 (a)",
		"CREATE INDEX i2 ON notes(title)",
		"DROP TABLE notes",
		"ALTER TABLE notes ADD COLUMN c",
		"CREATE VIEW w AS SELECT 1",
		"PRAGMA user_version = 3",
		"PRAGMA table_info(notes)",
		"SELECT * FROM query_log; DELETE FROM notes",
		"ATTACH ':memory:' AS m",
		"VACUUM",
		"BEGIN",
	} {
		msg := env.MustFail(t, "create_view", map[string]any{"name": "v", "select_sql": sql})
		assert.NotContains(t, msg, "read_query", sql)
		assert.Regexp(t, `create_view|the view|SELECT|statement|not allowed`, msg, sql)
	}
}

// TestCreateViewTakesQueryLikeEverySQLTool: an agent that sends its SELECT
// as query, the name every other SQL tool uses, gets its view.
func TestCreateViewTakesQueryLikeEverySQLTool(t *testing.T) {
	env := seeded(t)
	out := env.MustCall(t, "create_view", map[string]any{"name": "v_titles", "query": "SELECT title FROM notes"})
	assert.Contains(t, out, "v_titles")
	assert.Contains(t, env.MustCall(t, "read_query", map[string]any{"sql": "SELECT count(*) FROM v_titles"}), "\n")
	msg := env.MustFail(t, "describe_table", map[string]any{"tabel": "v_titles"})
	assert.Contains(t, msg, `did you mean "table"?`)
}
