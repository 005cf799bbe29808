package e2e_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A virtual table does its work in xFilter and xNext, each one step of the
// statement, and SQLite looks at the interrupt only between steps. FTS5
// parses its full-text query in xFilter, in time quadratic in the terms
// (80,000 ORs ran for 10 s past a 2 s deadline, holding the write lock),
// and the query can be built inside the SQL. Every way a statement hands
// FTS5 a query, through every tool, must be refused with a message saying
// what to do, leave nothing behind and the write lock free, and let the
// next call be served. The inventory of the class is in docs/decisions.md.

// vtabOr is SQL building an FTS5 query of n+1 terms joined by sep.
func vtabOr(n int, sep string) string {
	return fmt.Sprintf("('a' || replace(%s, 'x', '%s'))", repeat(n, "x"), sep)
}

// vtabRefused is what the refusal of an FTS5 query over the bounds says.
const vtabRefused = "full-text query (the right side of MATCH"

func TestVirtualTableStepsAreBounded(t *testing.T) {
	t.Parallel()
	path := newDB(t)
	p := start(t, path, "--query-timeout", strconv.Itoa(int(bombTimeout.Seconds())))
	cs := p.Session
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(20000)")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		"CREATE VIRTUAL TABLE f USING fts5(body)",
		"INSERT INTO f VALUES ('a b c'), ('a fox')",
		"CREATE VIRTUAL TABLE g USING fts5(body, tokenize = 'trigram')",
		"INSERT INTO g VALUES ('aaaa')",
		"CREATE TABLE notes (body TEXT)",
		"INSERT INTO notes VALUES ('a fox')",
		"CREATE TABLE sink (v)",
		"CREATE TABLE qs (q TEXT)",
		"INSERT INTO qs SELECT " + vtabOr(80000, " OR a"),
		"CREATE TABLE src (q TEXT)",
	} {
		mustCall(t, cs, "write_query", map[string]any{"query": q})
	}
	mustCall(t, cs, "destructive_query", map[string]any{"reason": "setup", "query": "CREATE TRIGGER src_search BEFORE INSERT ON src " +
		"BEGIN INSERT INTO sink SELECT count(*) FROM f WHERE f MATCH NEW.q; END"})
	mustCall(t, cs, "create_view", map[string]any{"name": "fv", "select_sql": "SELECT count(*) AS n FROM f WHERE f MATCH (SELECT q FROM qs)"})
	or80k := vtabOr(80000, " OR a")
	calls := []struct {
		name, tool string
		args       map[string]any
	}{
		{"MATCH", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH " + or80k}},
		{"juxtaposed terms", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH " + vtabOr(80000, " a")}},
		{"MATCH on a column", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE body MATCH " + or80k}},
		{"= on the table", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f = " + or80k}},
		{"table-valued", "read_query", map[string]any{"query": "SELECT count(*) FROM f(" + or80k + ")"}},
		{"rank MATCH", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH 'a' AND rank MATCH 'bm25(' || replace(" +
			repeat(100000, "x") + ", 'x', '1.0, ') || '1.0)'"}},
		{"a phrase", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH '\"' || " + vtabOr(1000000, " a") + " || '\"'"}},
		{"LIKE on a trigram table", "read_query", map[string]any{"query": "SELECT count(*) FROM g WHERE body LIKE '%' || " + repeat(2000000, "a") + " || '%'"}},
		{"a view", "read_query", map[string]any{"query": "SELECT * FROM fv"}},
		{"search_text", "search_text", map[string]any{"table": "notes", "pattern": "fox",
			"where": "EXISTS (SELECT 1 FROM f WHERE f MATCH " + or80k + ")"}},
		{"write_query", "write_query", map[string]any{"query": "INSERT INTO sink SELECT count(*) FROM f WHERE f MATCH " + or80k}},
		{"a trigger", "write_query", map[string]any{"query": "INSERT INTO src SELECT q FROM qs"}},
		{"destructive_query", "destructive_query", map[string]any{"reason": "test", "query": "DELETE FROM notes WHERE rowid IN " +
			"(SELECT rowid FROM f WHERE f MATCH " + or80k + ")"}},
	}
	for _, c := range calls {
		out, isErr, err := call(cs, c.tool, c.args)
		require.NoError(t, err, "%s: protocol error; the server may have died", c.name)
		assert.True(t, isErr, "%s: must be refused, got: %s", c.name, abbreviate(out))
		assert.Contains(t, out, vtabRefused, c.name)
		assert.Contains(t, out, "Search for fewer terms at once", "%s: the refusal says what to do", c.name)
		if c.tool != "read_query" && c.tool != "search_text" {
			// The write lock is free once the answer is out.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			conn, err := db.Conn(ctx)
			if assert.NoError(t, err) {
				_, err = conn.ExecContext(ctx, "PRAGMA busy_timeout = 0")
				assert.NoError(t, err)
				_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
				assert.NoError(t, err, "%s: the write lock is free after the answer", c.name)
				_, _ = conn.ExecContext(ctx, "ROLLBACK")
				_, _ = conn.ExecContext(ctx, "PRAGMA busy_timeout = 20000")
				conn.Close()
			}
			cancel()
		}
		assert.Equal(t, "n\n1\n# 1 rows", mustCall(t, cs, "read_query", map[string]any{"query": "SELECT (SELECT count(*) FROM sink) + " +
			"(SELECT count(*) FROM src) + (SELECT count(*) FROM notes) AS n"}), "%s: the next call is served, nothing committed", c.name)
	}
}
