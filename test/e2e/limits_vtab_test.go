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

// A virtual table does its work in xFilter, xNext and xUpdate, each one
// step of the statement, and SQLite looks at the interrupt only between
// steps. FTS5 parses its full-text query in xFilter, in time quadratic in
// the terms (80,000 ORs ran for 10 s past a 2 s deadline, holding the
// write lock), and tokenizes a row it indexes, and writes its terms at
// COMMIT, without looking at the interrupt; the query and the row can be
// built inside the SQL. Every such construction, through every tool, must
// fail with a message saying what to do, leave nothing behind and the
// write lock free, and let the next call be served. The inventory of the
// class is in docs/decisions.md.

// vtabOr is SQL building an FTS5 query of n+1 terms joined by sep.
func vtabOr(n int, sep string) string {
	return fmt.Sprintf("('a' || replace(%s, 'x', '%s'))", repeat(n, "x"), sep)
}

// What the refusals say, and what they tell the agent to do.
var (
	vtabQuery   = []string{"full-text query (the right side of MATCH", "Search for fewer terms at once"}
	vtabRow     = []string{"distinct terms for one row", "Split the text over several rows"}
	vtabTimeout = []string{timedOut, "narrow it"}
)

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
	mustCall(t, cs, "destructive_query", map[string]any{"reason": "setup", "query": "CREATE TRIGGER sink_index AFTER INSERT ON sink " +
		"BEGIN INSERT INTO f (body) VALUES (NEW.v); END"})
	mustCall(t, cs, "destructive_query", map[string]any{"reason": "setup", "query": "CREATE TRIGGER src_search BEFORE INSERT ON src " +
		"BEGIN INSERT INTO sink SELECT count(*) FROM f WHERE f MATCH NEW.q; END"})
	mustCall(t, cs, "create_view", map[string]any{"name": "fv", "select_sql": "SELECT count(*) AS n FROM f WHERE f MATCH (SELECT q FROM qs)"})
	or80k := vtabOr(80000, " OR a")
	calls := []struct {
		name, tool string
		args       map[string]any
		want       []string
	}{
		{"MATCH", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH " + or80k}, nil},
		{"juxtaposed terms", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH " + vtabOr(80000, " a")}, nil},
		{"MATCH on a column", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE body MATCH " + or80k}, nil},
		{"= on the table", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f = " + or80k}, nil},
		{"table-valued", "read_query", map[string]any{"query": "SELECT count(*) FROM f(" + or80k + ")"}, nil},
		{"rank MATCH", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH 'a' AND rank MATCH 'bm25(' || replace(" +
			repeat(100000, "x") + ", 'x', '1.0, ') || '1.0)'"}, nil},
		{"a phrase", "read_query", map[string]any{"query": "SELECT count(*) FROM f WHERE f MATCH '\"' || " + vtabOr(1000000, " a") + " || '\"'"}, nil},
		{"a view", "read_query", map[string]any{"query": "SELECT * FROM fv"}, nil},
		{"search_text", "search_text", map[string]any{"table": "notes", "pattern": "fox",
			"where": "EXISTS (SELECT 1 FROM f WHERE f MATCH " + or80k + ")"}, nil},
		{"write_query", "write_query", map[string]any{"query": "INSERT INTO sink SELECT count(*) FROM f WHERE f MATCH " + or80k}, nil},
		{"a trigger", "write_query", map[string]any{"query": "INSERT INTO src SELECT q FROM qs"}, nil},
		{"destructive_query", "destructive_query", map[string]any{"reason": "test", "query": "DELETE FROM notes WHERE rowid IN " +
			"(SELECT rowid FROM f WHERE f MATCH " + or80k + ")"}, nil},
		{"a row of 100,000 distinct terms", "write_query", map[string]any{"query": "INSERT INTO f VALUES " +
			"(replace(hex(randomblob(800000)), '0', ' '))"}, vtabRow},
		{"a row through a trigger", "write_query", map[string]any{"query": "INSERT INTO sink VALUES " +
			"(replace(hex(randomblob(800000)), '0', ' '))"}, vtabRow},
		// Twenty rows of 8 million characters: tokenizing runs far past the
		// deadline on any machine (one row alone fits in 2 s on an idle
		// one), so the case shows the interrupt stopping the tokenizer
		// rather than how fast this machine is.
		{"8 million characters on a trigram table, twenty times", "write_query", map[string]any{"query": "INSERT INTO g " +
			"SELECT hex(randomblob(4000000)) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) SELECT i FROM n)"}, vtabTimeout},
	}
	for _, c := range calls {
		out, isErr, err := call(cs, c.tool, c.args)
		require.NoError(t, err, "%s: protocol error; the server may have died", c.name)
		assert.True(t, isErr, "%s: must be refused, got: %s", c.name, abbreviate(out))
		want := c.want
		if want == nil {
			want = vtabQuery
		}
		assert.Contains(t, out, want[0], c.name)
		assert.Contains(t, out, want[1], "%s: the refusal says what to do", c.name)
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
		assert.Equal(t, "n\n4\n# 1 rows", mustCall(t, cs, "read_query", map[string]any{"query": "SELECT (SELECT count(*) FROM sink) + " +
			"(SELECT count(*) FROM src) + (SELECT count(*) FROM notes) + (SELECT count(*) FROM f) + " +
			"(SELECT count(*) FROM g) AS n"}), "%s: the next call is served, nothing committed", c.name)
	}
}
