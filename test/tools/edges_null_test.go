package tools_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// TestEveryCSVAnswerTellsNullFromEmptyText checks the one CSV rule on every
// tool that answers with CSV: NULL is an empty cell, the empty string "".
func TestEveryCSVAnswerTellsNullFromEmptyText(t *testing.T) {
	env := harness.New(t, harness.Config{})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE e (k TEXT PRIMARY KEY, a TEXT, b TEXT, untyped)"})
	assert.Equal(t, "ok: 1 rows affected (last_insert_rowid=1)\nk,a,b\nk1,\"\",\n# 1 rows",
		env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO e VALUES ('k1', '', NULL, NULL) RETURNING k, a, b"}), "write_query RETURNING")
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO e VALUES ('', 'x', NULL, NULL)"})

	assert.Equal(t, "k,a,b\n\"\",x,\nk1,\"\",\n# 2 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT k, a, b FROM e ORDER BY k"}), "read_query")

	// A column with no declared type has the empty string as its type and
	// NULL as its default.
	desc := env.MustCall(t, "describe_table", map[string]any{"table": "e"})
	assert.Contains(t, desc, "\n3,untyped,\"\",0,,0\n", "describe_table")

	// The empty value matches ^$: its snippet is the empty string.
	assert.Contains(t, env.MustCall(t, "search_text", map[string]any{"table": "e", "pattern": "^$", "columns": []string{"a"}}),
		"key,column,snippet\n1,a,\"\"\n", "search_text")

	assert.Contains(t, env.MustCall(t, "list_tables", map[string]any{}), "\ne,table,0,2\n", "list_tables")
}
