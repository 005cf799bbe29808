package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// The bounded replacements of instr, replace, trim/ltrim/rtrim, LIKE and
// GLOB must answer exactly what SQLite's own built-ins answer. Each case
// runs on an agent connection (the replacements) and on a plain connection
// of the same driver (SQLite's C code), and the type and bytes of the
// result, or the error, must be equal.

// boundedPieces are the fragments random arguments are made of: wildcards
// and escapes of both LIKE and GLOB, class syntax, ASCII case pairs,
// multi-byte UTF-8, and bytes that are not UTF-8 at all (lone continuation
// and lead bytes, overlong and surrogate forms, NUL).
var boundedPieces = []string{
	"a", "A", "b", "B", "z", "%", "_", "*", "?", "[", "]", "^", "-", "\\", "x", " ", "é", "É", "ß", "中", "😀",
	"\x80", "\xff", "\xc3", "\xc0\x80", "\xed\xa0\x80", "\xef\xbf\xbe", "\x00", "[a-c]", "[^a]", "[]]", "%a%", "aa", "0", "9", "f", "F", "g",
}

// boundedArg renders one random argument as a SQL literal: text (any
// bytes, via a blob cast), a blob, NULL, an integer or a real.
func boundedArg(r *rand.Rand, bias []string) string {
	switch r.IntN(20) {
	case 0:
		return "NULL"
	case 1:
		return fmt.Sprint(r.IntN(200) - 50)
	case 2:
		return []string{"1.5", "-0.0", "1e300", "0.1", "100.0"}[r.IntN(5)]
	case 3, 4:
		return "x'" + hex.EncodeToString([]byte(boundedText(r, bias))) + "'"
	}
	return "CAST(x'" + hex.EncodeToString([]byte(boundedText(r, bias))) + "' AS TEXT)"
}

func boundedText(r *rand.Rand, bias []string) string {
	var b strings.Builder
	for n := r.IntN(7); n > 0; n-- {
		if len(bias) > 0 && r.IntN(2) == 0 {
			b.WriteString(bias[r.IntN(len(bias))])
			continue
		}
		b.WriteString(boundedPieces[r.IntN(len(boundedPieces))])
	}
	return b.String()
}

// jsonArg is a random JSON argument of json_patch: objects that share
// keys, nested ones, nulls that delete, arrays, JSON5, JSONB, broken JSON.
func jsonArg(r *rand.Rand) string {
	docs := []string{`'{"a":1,"b":{"c":2}}'`, `'{"a":null}'`, `'{"b":{"c":null,"d":[1,2]}}'`, `'[1,2]'`, `'{a:1,}'`,
		`'{"a":"\u0041"}'`, `'{"a":1'`, `'3'`, `'null'`, `NULL`, `jsonb('{"x":{"y":1}}')`, `json('{"a" : 2}')`, `x'00'`, `'{"a":{}}'`}
	return docs[r.IntN(len(docs))]
}

// pathArg is a random JSON path: present, absent, array, append, bad.
func pathArg(r *rand.Rand) string {
	paths := []string{`'$'`, `'$.a'`, `'$.b.c'`, `'$.b.d[0]'`, `'$.zz'`, `'$[0]'`, `'$[#]'`, `'$[#-1]'`, `'$.x.y'`, `'bad'`, `NULL`, `'$."a"'`, `3`}
	return paths[r.IntN(len(paths))]
}

// boundedExprs builds n random calls of each replaced function, with the
// LIKE and GLOB operators (ESCAPE included) among them.
func boundedExprs(n int) []string {
	r := rand.New(rand.NewPCG(11, 54))
	a := func(bias ...string) string { return boundedArg(r, bias) }
	forms := []func() string{
		func() string { return fmt.Sprintf("instr(%s, %s)", a("a", "é"), a("a")) },
		func() string { return fmt.Sprintf("replace(%s, %s, %s)", a("a", "aa"), a("a"), a("xyz")) },
		func() string { return fmt.Sprintf("trim(%s, %s)", a("a", " "), a("a")) },
		func() string { return fmt.Sprintf("ltrim(%s, %s)", a("a", "é"), a("é")) },
		func() string { return fmt.Sprintf("rtrim(%s, %s)", a("a", "\xc3"), a("a")) },
		func() string { return fmt.Sprintf("(%s LIKE %s)", a("a", "A"), a("%", "_", "a")) },
		func() string { return fmt.Sprintf("(%s NOT LIKE %s)", a("a", "b"), a("%", "_", "A")) },
		func() string {
			return fmt.Sprintf("(%s LIKE %s ESCAPE %s)", a("a", "%", "_"), a("%", "_", "\\"), []string{"'\\'", "'%'", "'_'", "'a'", "'é'", "''", "'ab'", "NULL", "x'5c'", "1"}[r.IntN(10)])
		},
		func() string {
			return fmt.Sprintf("(%s GLOB %s)", a("a", "b", "]"), a("*", "?", "[a-c]", "[^a]", "[]]", "["))
		},
		func() string { return fmt.Sprintf("like(%s, %s)", a("%"), a("a")) },
		func() string { return fmt.Sprintf("glob(%s, %s)", a("*"), a("a")) },
		func() string { return fmt.Sprintf("json_array(json_patch(%s, %s))", jsonArg(r), jsonArg(r)) },
		func() string { return fmt.Sprintf("jsonb_patch(%s, %s)", jsonArg(r), jsonArg(r)) },
		func() string {
			return fmt.Sprintf("json_array(json_extract(%s, %s, %s))", jsonArg(r), pathArg(r), pathArg(r))
		},
		func() string { return fmt.Sprintf("json_extract(%s, %s)", jsonArg(r), pathArg(r)) },
		func() string {
			return fmt.Sprintf("jsonb_extract(%s, %s, %s, %s)", jsonArg(r), pathArg(r), pathArg(r), pathArg(r))
		},
		func() string {
			f := []string{"json_set", "json_insert", "json_replace", "jsonb_set", "json_array_insert"}[r.IntN(5)]
			return fmt.Sprintf("json_array(%s(%s, %s, %s, %s, %s))", f, jsonArg(r), pathArg(r), jsonArg(r), pathArg(r), jsonArg(r))
		},
		func() string { return fmt.Sprintf("json_remove(%s, %s, %s)", jsonArg(r), pathArg(r), pathArg(r)) },
		func() string {
			return fmt.Sprintf("unhex(%s, %s)", a("0a", "F", "x", " ", "é", "-"), a(" ", "-", "é", "x"))
		},
	}
	var out []string
	for range n {
		for _, f := range forms {
			out = append(out, f())
		}
	}
	return out
}

// boundedEdgeExprs are hand-picked cases the random ones may miss.
var boundedEdgeExprs = []string{
	"instr('', '')", "instr('abc', '')", "instr(x'', x'')", "instr(x'616263', 'c')", "instr('abc', x'63')",
	"instr(12345, 34)", "instr(1.5, '.')", "instr('aé中b', 'b')", "instr(CAST(x'80808061' AS TEXT), 'a')",
	"instr(CAST(x'61006200' AS TEXT), CAST(x'6200' AS TEXT))", "instr(x'00010200', x'0200')",
	"replace('abc', '', 'x')", "replace('abc', x'00', 'x')", "replace(123, 2, 9)", "replace('aaaa', 'aa', 'b')",
	"replace(x'616161', 'a', 'bb')", "replace('abc', 'b', NULL)", "replace(NULL, 'b', 'c')", "replace('abc', NULL, 'c')",
	"replace('abc', '', NULL)", "replace(CAST(x'610062' AS TEXT), CAST(x'0062' AS TEXT), 'z')",
	"trim('  ab  ', '')", "trim('xxabxx', 'x')", "trim('abcba', 'ab')", "ltrim('ééa', 'é')", "rtrim('aéé', 'é')",
	"trim('abc', CAST(x'610062' AS TEXT))", "trim(123, 1)", "trim(NULL, 'a')", "trim('a', NULL)", "trim(x'616261', 'a')",
	"'abc' LIKE 'ABC'", "'ß' LIKE 'SS'", "'é' LIKE 'É'", "'a%' LIKE 'a\\%' ESCAPE '\\'", "'a_' LIKE 'a%_' ESCAPE '%'",
	"'abc' LIKE '%' ESCAPE '%'", "'a' LIKE 'a' ESCAPE ''", "'a' LIKE 'a' ESCAPE 'ab'", "'a' LIKE 'a' ESCAPE NULL",
	"'abc' LIKE 'a\\'", "'abc' GLOB 'a[b-c]c'", "'a]c' GLOB 'a[]]c'", "'abc' GLOB 'a[^b]c'", "'abc' GLOB 'a[b'",
	"'a-c' GLOB 'a[a-]c'", "'abc' GLOB '*[c]'", "'abc' GLOB '*[d]'", "'aXc' GLOB '*[A-Z]*'", "'ABC' GLOB 'abc'",
	"x'61' LIKE 'a'", "'a' LIKE x'61'", "NULL LIKE x'61'", "'a' LIKE NULL", "NULL GLOB '*'", "5 LIKE 5", "1.5 LIKE '1._'",
	"'中文' LIKE '_文'", "'中文' LIKE '%文'", "CAST(x'ff61' AS TEXT) LIKE '_a'", "CAST(x'c080' AS TEXT) LIKE '_'",
	"CAST(x'610062' AS TEXT) LIKE 'a'", "'a' LIKE CAST(x'610062' AS TEXT)", "'aaa' LIKE '%%%a'", "'ab' LIKE '%_%_%_'",
	"unhex('0a 0b', ' ')", "unhex('0a0b', '')", "unhex('', 'x')", "unhex('0a-', '-')", "unhex('0', ' ')", "unhex('0a é0b', 'é ')",
	"unhex(NULL, ' ')", "unhex('0a', NULL)", "unhex(x'30610a', x'0a')", "unhex(1234, 2)", "unhex('0a\x0b', 'x')", "unhex('0 a', ' ')",
	"unhex(CAST(x'306100306200' AS TEXT), CAST(x'00' AS TEXT))", "unhex('0A0b', CAST(x'c3' AS TEXT))",
	"json_patch('{\"a\":1}', '{\"b\":2}')", "json_array(json_patch('{}', '{}'))", "json_patch('{', '{}')", "json_patch(NULL, '{}')",
	"typeof(jsonb_patch('{\"a\":1}', '{\"a\":null}'))", "json_patch('[1]', '{\"a\":[2]}')",
	"'abc' GLOB '**?*'", "'' LIKE '%'", "'' GLOB '?'", "'x' LIKE '%' || 'X'",
}

func TestBoundedFunctionsAnswerAsSQLite(t *testing.T) {
	s := mustOpen(t)
	ref, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer ref.Close()
	ref.SetMaxOpenConns(1)
	exprs := append(boundedEdgeExprs, boundedExprs(500)...)
	matched := 0
	for _, e := range exprs {
		q := "SELECT typeof(r), hex(r) FROM (SELECT " + e + " AS r)"
		var wantType, wantHex string
		wantErr := ref.QueryRow(q).Scan(&wantType, &wantHex)
		_, rows, gotErr := readAll(t, s, q)
		if wantErr != nil {
			if assert.Error(t, gotErr, e) {
				assert.Contains(t, gotErr.Error(), sqliteMessage(wantErr), e)
			}
			continue
		}
		if !assert.NoError(t, gotErr, e) || !assert.Len(t, rows, 1, e) {
			continue
		}
		if assert.Equal(t, []any{wantType, wantHex}, rows[0], e) && wantType == "integer" && wantHex == "31" {
			matched++
		}
	}
	t.Logf("%d cases, %d of them true/1", len(exprs), matched)
	assert.Greater(t, matched, len(exprs)/20, "the random cases should often match, or they test little")
}

// sqliteMessage is the driver error's SQLite text, without the driver's
// "SQL logic error: ... (1)" wrapping.
func sqliteMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	if i := strings.LastIndex(msg, " ("); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// TestBoundedFunctionsStopAtTheDeadline runs one call of each replaced
// function on two values near the value cap, made to cost the most, and
// checks that the deadline ends it.
func TestBoundedFunctionsStopAtTheDeadline(t *testing.T) {
	s := mustOpen(t)
	for _, c := range boundedBombs {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := s.Read(ctx, "SELECT "+c.sql, func([]string) {}, func([]any) bool { return true })
			took := time.Since(start)
			require.Error(t, err)
			assert.ErrorIs(t, err, domain.ErrTimeout)
			assert.Less(t, took, slack.Of(2*time.Second), "one call must stop soon after the deadline")
		})
	}
}

// boundedBombs are the worst case of each replaced function at about
// 4 MiB per argument (two arguments fill the 8 MiB cap together): each runs
// for minutes on SQLite's own code.
var boundedBombs = []struct{ name, sql string }{
	{"instr", "instr(printf('%.*c', 6000000, 'a'), printf('%.*c', 2000000, 'a') || 'b')"},
	{"replace", "replace(printf('%.*c', 6000000, 'a'), printf('%.*c', 2000000, 'a') || 'b', 'c')"},
	{"trim", "trim(printf('%.*c', 4000000, 'a'), printf('%.*c', 4000000, 'b') || 'a')"},
	{"ltrim", "ltrim(printf('%.*c', 4000000, 'a'), printf('%.*c', 4000000, 'b') || 'a')"},
	{"rtrim", "rtrim(printf('%.*c', 4000000, 'a'), printf('%.*c', 4000000, 'b') || 'a')"},
	{"like", "printf('%.*c', 8000000, 'a') LIKE '%' || printf('%.*c', 40000, 'a') || 'b'"},
	{"like escape", "printf('%.*c', 8000000, 'a') LIKE '%' || printf('%.*c', 40000, 'a') || 'b' ESCAPE '!'"},
	{"glob", "printf('%.*c', 8000000, 'a') GLOB '*' || printf('%.*c', 40000, 'a') || 'b'"},
	{"unhex", "unhex(printf('%.*c', 4000000, 'x'), printf('%.*c', 4000000, 'y') || 'x')"},
	{"glob class", "printf('%.*c', 8000000, 'a') GLOB '*[a]' || printf('%.*c', 10000, '?') || 'b'"},
}

// objectSQL is SQL for a JSON object of n keys named prefix0, prefix1, ...
func objectSQL(prefix string, n int) string {
	return fmt.Sprintf("(SELECT json_group_object('%s' || i, 1) FROM (WITH RECURSIVE s(i) AS "+
		"(SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < %d) SELECT i FROM s))", prefix, n-1)
}

// The path-list JSON functions refuse many paths over a large document,
// and run SQLite's code otherwise.
func TestJSONPathListsAreBounded(t *testing.T) {
	s := mustOpen(t)
	// A 3 MB object of 500,000 members, built without a slow CTE.
	doc := "('{' || replace(printf('%.*c', 500000, 'x'), 'x', '\"k\":1,') || '\"a499999\":1}')"
	for _, f := range []string{"json_extract", "json_remove", "jsonb_extract"} {
		start := time.Now()
		_, _, err := readAll(t, s, "SELECT length("+f+"("+doc+strings.Repeat(", '$.zz'", 99)+"))")
		assert.ErrorIs(t, err, domain.ErrSQLite, f)
		assert.ErrorContains(t, err, f+" of 99 paths in a ")
		assert.Less(t, time.Since(start), slack.Of(3*time.Second), "refused before the paths are looked up")
	}
	_, _, err := readAll(t, s, "SELECT length(json_set("+doc+strings.Repeat(", '$.zz', 1", 50)+"))")
	assert.ErrorContains(t, err, "json_set of 50 paths in a ")
	// One or two paths on the same document, and many on a small one, run.
	_, rows, err := readAll(t, s, "SELECT json_extract("+doc+", '$.a499999', '$.zz')")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"[1,null]"}}, rows)
	_, rows, err = readAll(t, s, "SELECT json_extract('{\"a\":1}'"+strings.Repeat(", '$.a'", 999)+") = '['"+
		" || substr(printf('%.*c', 999, 'x'), 1, 0) || replace(printf('%.*c', 998, 'x'), 'x', '1,') || '1]'")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(1)}}, rows)
}

// json_patch is bounded by refusing a call whose cost, the product of its
// two sizes, is over the bound; below it SQLite's own code runs.
func TestJSONPatchIsBounded(t *testing.T) {
	s := mustOpen(t)
	// Two objects of 8,000 members each, built without a slow CTE.
	obj := "('{' || replace(printf('%.*c', 8000, 'x'), 'x', '\"k\":1,') || '\"z\":0}')"
	for _, f := range []string{"json_patch", "jsonb_patch"} {
		start := time.Now()
		_, _, err := readAll(t, s, "SELECT "+f+"("+obj+", "+obj+")")
		require.Error(t, err, f)
		assert.ErrorIs(t, err, domain.ErrSQLite)
		assert.Contains(t, err.Error(), f+" of a ")
		assert.Less(t, time.Since(start), slack.Of(5*time.Second), "refused before any quadratic work")
	}
	// The largest call the bound lets through: two objects whose sizes
	// multiply to just under it.
	start := time.Now()
	_, rows, err := readAll(t, s, "SELECT length(json_patch("+objectSQL("a", 1999)+", "+objectSQL("b", 1999)+"))")
	require.NoError(t, err)
	assert.Len(t, rows, 1)
	t.Logf("json_patch of two 1,999-key objects (just under the bound): %v", time.Since(start))
	// Few keys, however long the document: a patch of a big value is fine.
	_, _, err = readAll(t, s, "SELECT length(json_patch(json_object('a', printf('%.*c', 7000000, 'x'), 'b', 1), '{\"b\":2,\"c\":3}'))")
	assert.NoError(t, err)
	_, _, err = readAll(t, s, "SELECT length(json_patch(json_object('a', printf('%.*c', 7000000, ':')), '{\"b\":2,\"c\":3}'))")
	assert.NoError(t, err, "colons inside strings are not keys")
}

// highlight() and snippet() keep FTS5's answers, and refuse a row whose
// matches would cost them more than a fraction of a second.
func TestFTS5AuxiliariesAreBounded(t *testing.T) {
	s := mustOpen(t)
	mustWrite(t, s, "CREATE VIRTUAL TABLE f USING fts5(a, b)")
	mustWrite(t, s, "INSERT INTO f VALUES ('the quick brown fox jumps over the lazy dog', 'a fox, another fox, a third fox')")
	mustWrite(t, s, "INSERT INTO f VALUES (trim(replace(printf('%.*c', 10000, 'x'), 'x', 'fox ')), 'short')")
	ref, err := sql.Open("sqlite", "file:"+s.Path()+"?mode=ro")
	require.NoError(t, err)
	defer ref.Close()
	small := []string{
		"SELECT highlight(f, 0, '[', ']') FROM f WHERE f MATCH 'fox' AND rowid = 1",
		"SELECT highlight(f, 1, '<', '>') FROM f WHERE f MATCH 'fox OR dog' AND rowid = 1",
		"SELECT snippet(f, -1, '[', ']', '...', 4) FROM f WHERE f MATCH 'fox' AND rowid = 1",
		"SELECT snippet(f, 1, '[', ']', '...', 3) FROM f WHERE f MATCH 'fox OR short' ORDER BY rowid LIMIT 1",
		"SELECT highlight(f, 0, '[', ']') FROM f WHERE f MATCH 'fox' ORDER BY rowid",
		"SELECT snippet(f, 0, '[', ']', '...', 8) FROM f WHERE f MATCH 'short OR dog' ORDER BY rowid",
		"SELECT highlight(f, 7, '[', ']') FROM f WHERE f MATCH 'fox'",
	}
	for _, q := range small {
		var want []string
		rows, err := ref.Query(q)
		var wantErr error
		if err == nil {
			for rows.Next() {
				var v sql.NullString
				require.NoError(t, rows.Scan(&v))
				want = append(want, v.String)
			}
			wantErr = rows.Err()
			rows.Close()
		} else {
			wantErr = err
		}
		_, got, err := readAll(t, s, q)
		if wantErr != nil {
			assert.Error(t, err, q)
			continue
		}
		if assert.NoError(t, err, q) {
			var texts []string
			for _, r := range got {
				v, _ := r[0].(string)
				texts = append(texts, v)
			}
			assert.Equal(t, want, texts, q)
		}
	}
	// A row of 40,000 matches: snippet would take about a minute; and
	// highlight of 400,000 matches in a 1.6 MB text.
	mustWrite(t, s, "INSERT INTO f VALUES (trim(replace(printf('%.*c', 40000, 'x'), 'x', 'fox ')), '')")
	mustWrite(t, s, "INSERT INTO f VALUES (trim(replace(printf('%.*c', 400000, 'x'), 'x', 'fox ')), '')")
	for _, c := range []struct{ q, want string }{
		{"SELECT snippet(f, 0, '[', ']', '...', 8) FROM f WHERE f MATCH 'fox' AND rowid = 3", "snippet() of a row with 40000 matches is refused"},
		{"SELECT highlight(f, 0, '[', ']') FROM f WHERE f MATCH 'fox' AND rowid = 4", "highlight() of a 1599999-byte text with 400000 matches is refused"},
	} {
		start := time.Now()
		_, _, err = readAll(t, s, c.q)
		assert.ErrorIs(t, err, domain.ErrSQLite)
		assert.ErrorContains(t, err, c.want)
		assert.Less(t, time.Since(start), slack.Of(2*time.Second))
	}
}
