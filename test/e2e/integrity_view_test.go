package e2e_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntegrityCreateViewChangesOnlyTheView is docs/decisions.md#replacing-a-view
// through the binary: replacing a view that has INSTEAD OF triggers is refused (DROP
// VIEW would drop them), pointing to destructive_query; a definition that
// reads from the view itself, directly or through another view, is refused
// and the old view keeps working.
func TestIntegrityCreateViewChangesOnlyTheView(t *testing.T) {
	cs := start(t, newDB(t)).Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO notes (title) VALUES ('a'), ('b')"})
	mustCall(t, cs, "create_view", map[string]any{"name": "v_notes", "select_sql": "SELECT id, title FROM notes", "description": "notes"})
	mustCall(t, cs, "create_view", map[string]any{"name": "v_over", "select_sql": "SELECT * FROM v_notes", "description": "on top"})

	for _, body := range []string{"SELECT * FROM v_notes", "SELECT id, title FROM v_notes WHERE id > 1", "SELECT * FROM v_over"} {
		out := mustFail(t, cs, "create_view", map[string]any{"name": "v_notes", "select_sql": body, "description": "loop", "replace": true})
		assert.Contains(t, out, "itself", body)
		assert.Contains(t, out, "unchanged", body)
		got := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM v_notes"})
		require.True(t, strings.HasPrefix(got, "n\n2\n"), "%s: the old view keeps working: %q", body, got)
	}
	out := mustFail(t, cs, "create_view", map[string]any{"name": "v_self", "select_sql": "SELECT * FROM v_self", "description": "loop"})
	assert.Contains(t, out, "v_self")

	mustCall(t, cs, "destructive_query", map[string]any{
		"query":  "CREATE TRIGGER v_notes_ins INSTEAD OF INSERT ON v_notes BEGIN INSERT INTO notes (title) VALUES (new.title); END",
		"reason": "make the view writable",
	})
	out = mustFail(t, cs, "create_view", map[string]any{"name": "v_notes", "select_sql": "SELECT id, upper(title) AS title FROM notes", "description": "x", "replace": true})
	assert.Contains(t, out, "v_notes_ins")
	assert.Contains(t, out, "destructive_query")
	got := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'trigger' AND name = 'v_notes_ins'"})
	assert.True(t, strings.HasPrefix(got, "n\n1\n"), "the trigger is still there: %q", got)
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO v_notes (title) VALUES ('c')"})

	// The way through: drop the trigger with destructive_query, replace.
	mustCall(t, cs, "destructive_query", map[string]any{"query": "DROP TRIGGER v_notes_ins", "reason": "redefine the view"})
	// A definition that breaks another view reading this one is refused.
	mustCall(t, cs, "create_view", map[string]any{"name": "v_titles", "select_sql": "SELECT title FROM v_notes", "description": "titles"})
	out = mustFail(t, cs, "create_view", map[string]any{"name": "v_notes", "select_sql": "SELECT id FROM notes", "description": "x", "replace": true})
	assert.Contains(t, out, "v_titles")
	got = mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM v_titles"})
	assert.True(t, strings.HasPrefix(got, "n\n3\n"), "the dependent view keeps working: %q", got)
	mustCall(t, cs, "create_view", map[string]any{"name": "v_notes", "select_sql": "SELECT id, upper(title) AS title FROM notes", "description": "x", "replace": true})
	got = mustCall(t, cs, "read_query", map[string]any{"query": "SELECT title FROM v_notes ORDER BY id"})
	assert.True(t, strings.HasPrefix(got, "title\nA\nB\nC\n"), "%q", got)
}
