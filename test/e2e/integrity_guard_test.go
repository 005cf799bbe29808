package e2e_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntegrityGuardCountsTriggeredVirtualTables is
// docs/decisions.md#update-guard through the binary: a trigger that rewrites 2000 FTS5 rows was reported as "1 rows
// affected"; now write_query rolls it back under the default cap (500),
// and the rows are as before.
func TestIntegrityGuardCountsTriggeredVirtualTables(t *testing.T) {
	cs := start(t, newDB(t)).Session
	series := "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 2000) "
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE VIRTUAL TABLE docs USING fts5(body)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO docs (body) " + series + "SELECT 'hello ' || n FROM g"})
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE hits (id INTEGER PRIMARY KEY)"})
	mustCall(t, cs, "destructive_query", map[string]any{
		"query":  "CREATE TRIGGER hits_touch AFTER INSERT ON hits BEGIN UPDATE docs SET body = body || '!'; END",
		"reason": "test",
	})

	out := mustFail(t, cs, "write_query", map[string]any{"query": "INSERT INTO hits DEFAULT VALUES"})
	assert.Contains(t, out, "rolled back")
	assert.Contains(t, out, "destructive_query")
	assert.Contains(t, out, "--max-update-rows")
	got := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM docs WHERE body LIKE '%!'"})
	assert.True(t, strings.HasPrefix(got, "n\n0\n"), "no row was changed: %q", got)

	// destructive_query has no cap: the same statement runs there.
	mustCall(t, cs, "destructive_query", map[string]any{"query": "INSERT INTO hits DEFAULT VALUES", "reason": "touch every doc"})
	got = mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM docs WHERE body LIKE '%!'"})
	assert.True(t, strings.HasPrefix(got, "n\n2000\n"), "%q", got)
}

// TestIntegrityIndexWipeNeedsDestructiveQuery: FTS5 commands that empty a
// full-text index ('delete-all' on a contentless table empties the data
// with it) are refused by write_query, even sent by a trigger, and run in
// destructive_query after its snapshot.
func TestIntegrityIndexWipeNeedsDestructiveQuery(t *testing.T) {
	cs := start(t, newDB(t)).Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE VIRTUAL TABLE bare USING fts5(body, content='')"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO bare (rowid, body) VALUES (1, 'alpha'), (2, 'beta')"})
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE cmd (what TEXT)"})
	mustCall(t, cs, "destructive_query", map[string]any{
		"query":  "CREATE TRIGGER cmd_send AFTER INSERT ON cmd BEGIN INSERT INTO bare (bare) VALUES (new.what); END",
		"reason": "test",
	})
	for _, q := range []string{
		"INSERT INTO bare (bare) VALUES ('delete-all')",
		"INSERT INTO bare (bare) SELECT 'delete-' || 'all'",
		"INSERT INTO cmd VALUES ('delete-all')",
	} {
		out := mustFail(t, cs, "write_query", map[string]any{"query": q})
		assert.Contains(t, out, "destructive_query", q)
		got := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM bare WHERE bare MATCH 'alpha OR beta'"})
		require.True(t, strings.HasPrefix(got, "n\n2\n"), "%s: the index is intact: %q", q, got)
	}
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO bare (bare) VALUES ('optimize')"})
	out := mustCall(t, cs, "destructive_query", map[string]any{"query": "INSERT INTO bare (bare) VALUES ('delete-all')", "reason": "reset the index"})
	assert.Contains(t, out, "snapshot")
	got := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM bare WHERE bare MATCH 'alpha OR beta'"})
	assert.True(t, strings.HasPrefix(got, "n\n0\n"), "%q", got)
}
