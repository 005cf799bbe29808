package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// ftsOr is SQL building an FTS5 query of n+1 terms joined by sep: the
// request stays small whatever n is.
func ftsOr(n int, sep string) string {
	return fmt.Sprintf("('a' || replace(printf('%%.*c', %d, 'x'), 'x', '%s'))", n, sep)
}

// ftsRefused is the start of the refusal of an FTS5 query over a bound.
const ftsRefused = "full-text query (the right side of MATCH"

// ftsRunaway are the ways SQL hands FTS5 a query it would parse or
// tokenize for seconds in one step, each built inside the statement. The
// tables exist (ftsSetup); every statement must be refused.
var ftsRunaway = []struct {
	name string
	tier domain.Tier
	sql  string
}{
	{"MATCH, 20,000 ORs", domain.TierRead, "SELECT count(*) FROM f WHERE f MATCH " + ftsOr(20000, " OR a")},
	{"MATCH, 20,000 ANDs", domain.TierRead, "SELECT count(*) FROM f WHERE f MATCH " + ftsOr(20000, " AND a")},
	{"MATCH, 30,000 juxtaposed", domain.TierRead, "SELECT count(*) FROM f WHERE f MATCH " + ftsOr(30000, " a")},
	{"MATCH on a column", domain.TierRead, "SELECT count(*) FROM f WHERE body MATCH " + ftsOr(20000, " OR a")},
	{"= on the table", domain.TierRead, "SELECT count(*) FROM f WHERE f = " + ftsOr(20000, " OR a")},
	{"table-valued argument", domain.TierRead, "SELECT count(*) FROM f(" + ftsOr(20000, " OR a") + ")"},
	{"a quoted phrase of 100,000 terms", domain.TierRead, "SELECT count(*) FROM f WHERE f MATCH '\"' || " + ftsOr(100000, " a") + " || '\"'"},
	{"rank MATCH", domain.TierRead, "SELECT count(*) FROM f WHERE f MATCH 'a' AND rank MATCH 'bm25(' || " +
		"replace(printf('%.*c', 20000, 'x'), 'x', '1.0, ') || '1.0)'"},
	{"through a view", domain.TierRead, "SELECT * FROM fv"},
	{"a query per outer row", domain.TierRead, "SELECT (SELECT count(*) FROM f WHERE f MATCH q) FROM qs"},
	{"write_query", domain.TierWrite, "INSERT INTO sink SELECT count(*) FROM f WHERE f MATCH " + ftsOr(20000, " OR a")},
	{"a trigger", domain.TierWrite, "INSERT INTO src (q) SELECT q FROM qs"},
	{"destructive_query", domain.TierDestructive, "DELETE FROM sink WHERE rowid IN (SELECT rowid FROM f WHERE f MATCH " + ftsOr(20000, " OR a") + ")"},
}

func ftsSetup(t *testing.T, s *testDB) {
	for _, q := range []string{
		"CREATE VIRTUAL TABLE f USING fts5(body)",
		"INSERT INTO f VALUES ('a b c'), ('a fox')",
		"CREATE VIRTUAL TABLE g USING fts5(body, tokenize = 'trigram')",
		"INSERT INTO g VALUES ('aaaa')",
		"CREATE TABLE sink (v)",
		"INSERT INTO sink VALUES (1)",
		"CREATE TABLE qs (q TEXT)",
		"INSERT INTO qs SELECT " + ftsOr(20000, " OR a"),
		"CREATE TABLE src (q TEXT)",
		"CREATE TRIGGER src_search BEFORE INSERT ON src BEGIN INSERT INTO sink SELECT count(*) FROM f WHERE f MATCH NEW.q; END",
	} {
		mustWrite(t, s, q)
	}
	require.NoError(t, s.ReplaceView(context.Background(),
		domain.View{Name: "fv", Body: "SELECT count(*) AS n FROM f WHERE f MATCH (SELECT q FROM qs)"}, false, nil))
}

// TestFTS5QueriesAreBounded: FTS5 parses and tokenizes its query inside one
// step, which the deadline's interrupt cannot end. A query over the bounds
// is refused at once, however the SQL hands it to FTS5, in every tier; a
// refused write leaves nothing, and the next call is served.
func TestFTS5QueriesAreBounded(t *testing.T) {
	s := mustOpen(t)
	ftsSetup(t, s)
	for _, c := range ftsRunaway {
		var err error
		if c.tier == domain.TierRead {
			_, _, err = readAll(t, s, c.sql)
		} else {
			_, err = write(t, s, c.tier, c.sql)
		}
		assert.ErrorIs(t, err, domain.ErrSQLite, c.name)
		assert.ErrorContains(t, err, ftsRefused, c.name)
		assert.ErrorContains(t, err, "Search for fewer terms at once", "%s: the refusal says what to do", c.name)
		_, rows, err := readAll(t, s, "SELECT (SELECT count(*) FROM sink), (SELECT count(*) FROM src)")
		require.NoError(t, err, "%s: the next call is served", c.name)
		assert.Equal(t, [][]any{{int64(1), int64(0)}}, rows, "%s: nothing committed", c.name)
	}
}

// Queries within the bounds are FTS5's own: the same answers as on a plain
// connection, up to the largest query the bounds let through.
func TestFTS5QueriesWithinTheBounds(t *testing.T) {
	s := mustOpen(t)
	ftsSetup(t, s)
	ref, err := sql.Open("sqlite", "file:"+s.Path()+"?mode=ro")
	require.NoError(t, err)
	defer ref.Close()
	for _, q := range []string{
		"SELECT rowid FROM f WHERE f MATCH 'fox' ORDER BY rowid",
		"SELECT rowid FROM f WHERE f MATCH 'fox OR c' ORDER BY rowid",
		"SELECT rowid FROM f WHERE f MATCH '\"a fox\" NOT c' ORDER BY rowid",
		"SELECT rowid FROM f WHERE f MATCH 'body : a AND (b OR fox)' ORDER BY rowid",
		"SELECT rowid FROM f('a*') ORDER BY rowid",
		"SELECT rowid FROM f WHERE f = 'fox' AND rowid > 0",
		"SELECT rowid FROM f WHERE f MATCH 'a' AND rank MATCH 'bm25(2.0)' ORDER BY rank",
		"SELECT rowid FROM g WHERE body LIKE '%aa%'",
		"SELECT count(*) FROM f WHERE f MATCH " + ftsOr(engine.FTSQueryTerms/2-1, " OR a"),
		"SELECT count(*) FROM f WHERE f MATCH " + ftsOr(engine.FTSQueryTerms-1, " fox"),
		"SELECT count(*) FROM f WHERE f MATCH '\"' || " + ftsOr(engine.FTSQueryBytes/2-2, " a") + " || '\"'",
		"SELECT rowid FROM f WHERE f MATCH 'fox' AND rowid = 2",
	} {
		var want [][]any
		rows, err := ref.QueryContext(context.Background(), q)
		require.NoError(t, err, q)
		for rows.Next() {
			var v int64
			require.NoError(t, rows.Scan(&v))
			want = append(want, []any{v})
		}
		require.NoError(t, rows.Err())
		rows.Close()
		_, got, err := readAll(t, s, q)
		if assert.NoError(t, err, q) {
			assert.Equal(t, want, got, q)
		}
	}
	// An FTS5 syntax error is FTS5's own.
	_, _, err = readAll(t, s, "SELECT * FROM f WHERE f MATCH 'a AND'")
	assert.ErrorContains(t, err, "fts5: syntax error")
}

// ftsTerms is SQL for a text of about n distinct random terms (hex words).
func ftsTerms(n int) string {
	return fmt.Sprintf("replace(hex(randomblob(%d)), '0', ' ')", n*8)
}

// TestFTS5IndexingIsBounded: FTS5 tokenizes a row, and writes its terms at
// COMMIT, in steps the interrupt does not end, and the cost grows faster
// than the distinct terms. A row over the bound is refused however it
// reaches the index; tokenizing stops at the deadline; what stays within
// the bound is indexed as FTS5 does.
func TestFTS5IndexingIsBounded(t *testing.T) {
	s := mustOpen(t)
	for _, q := range []string{
		"CREATE VIRTUAL TABLE f USING fts5(body)",
		"CREATE VIRTUAL TABLE two USING fts5(a, b, tokenize = 'porter')",
		"CREATE VIRTUAL TABLE g USING fts5(body, tokenize = 'trigram')",
		"CREATE TABLE docs (body TEXT)",
		"CREATE VIRTUAL TABLE e USING fts5(body, content = 'docs')",
		"CREATE TABLE sink (v)",
		"CREATE TRIGGER docs_index AFTER INSERT ON sink BEGIN INSERT INTO f (body) VALUES (NEW.v); END",
		"INSERT INTO f VALUES ('hello world')",
	} {
		mustWrite(t, s, q)
	}
	over := engine.FTSRowTerms * 3 / 2
	refused := fmt.Sprintf("FTS5 indexes at most %d distinct terms for one row", engine.FTSRowTerms)
	for _, c := range []struct {
		name string
		tier domain.Tier
		sql  string
	}{
		{"one text", domain.TierWrite, "INSERT INTO f VALUES (" + ftsTerms(over) + ")"},
		{"two columns, neither over alone", domain.TierWrite, fmt.Sprintf("INSERT INTO two VALUES (%s, %s)", ftsTerms(over/2), ftsTerms(over/2))},
		{"an UPDATE", domain.TierWrite, "UPDATE f SET body = " + ftsTerms(over) + " WHERE rowid = 1"},
		{"a trigger", domain.TierWrite, "INSERT INTO sink VALUES (" + ftsTerms(over) + ")"},
		{"'rebuild' of external content", domain.TierDestructive, "INSERT INTO e (e) VALUES ('rebuild')"},
		{"a 'hashsize' over FTS5's default", domain.TierWrite, "INSERT INTO f (f, rank) VALUES ('hashsize', 100000000)"},
	} {
		if c.name == "'rebuild' of external content" {
			mustWrite(t, s, "INSERT INTO docs VALUES ("+ftsTerms(over)+")")
		}
		_, err := write(t, s, c.tier, c.sql)
		assert.ErrorIs(t, err, domain.ErrSQLite, c.name)
		if c.name == "a 'hashsize' over FTS5's default" {
			assert.ErrorContains(t, err, "an FTS5 'hashsize' over 1048576 bytes is refused", c.name)
			assert.ErrorContains(t, err, `VALUES ('hashsize', 1048576)`, "%s: says what to do", c.name)
		} else {
			assert.ErrorContains(t, err, refused, c.name)
			assert.ErrorContains(t, err, "Split the text over several rows", "%s: says what to do", c.name)
		}
		_, rows, err := readAll(t, s, "SELECT (SELECT count(*) FROM f WHERE f MATCH 'hello'), (SELECT count(*) FROM f), (SELECT count(*) FROM sink)")
		require.NoError(t, err, "%s: the next call is served", c.name)
		assert.Equal(t, [][]any{{int64(1), int64(1), int64(0)}}, rows, "%s: nothing committed", c.name)
	}

	// A table given a larger 'hashsize' elsewhere takes no agent write but
	// the one that lowers it.
	ref, err := sql.Open("sqlite", "file:"+s.Path())
	require.NoError(t, err)
	_, err = ref.Exec("INSERT INTO f (f, rank) VALUES ('hashsize', 100000000)")
	require.NoError(t, err)
	require.NoError(t, ref.Close())
	_, err = write(t, s, domain.TierWrite, "INSERT INTO f VALUES ('more')")
	assert.ErrorContains(t, err, "an FTS5 'hashsize' over 1048576 bytes is refused")
	mustWrite(t, s, "INSERT INTO f (f, rank) VALUES ('hashsize', 1048576)")
	mustWrite(t, s, "DELETE FROM f WHERE f MATCH 'more'")

	// Tokenizing a text of 8 million characters (a few thousand distinct
	// trigrams) takes seconds, and stops at the deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = s.Write(ctx, domain.WriteRequest{Tier: domain.TierWrite, SQL: "INSERT INTO g VALUES (hex(randomblob(4000000)))"},
		func([]string) {}, func([]any) bool { return true })
	cancel()
	assert.ErrorIs(t, err, domain.ErrTimeout, "tokenizing stops at the deadline")

	// Within the bound: a row just under it, one term 1.5 million times,
	// a 'hashsize' at the default, all indexed as FTS5 does.
	mustWrite(t, s, "INSERT INTO f VALUES ("+ftsTerms(engine.FTSRowTerms*3/4)+" || ' needle')")
	mustWrite(t, s, "INSERT INTO f VALUES (replace(printf('%.*c', 1500000, 'x'), 'x', 'fox '))")
	mustWrite(t, s, "INSERT INTO f (f, rank) VALUES ('hashsize', 1048576)")
	_, rows, err := readAll(t, s, "SELECT (SELECT count(*) FROM f WHERE f MATCH 'needle'), (SELECT count(*) FROM f WHERE f MATCH 'fox'), (SELECT count(*) FROM f)")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(1), int64(1), int64(3)}}, rows)
}
