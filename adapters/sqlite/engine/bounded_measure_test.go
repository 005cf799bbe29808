package engine_test

import (
	"context"
	"database/sql"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
)

// The inventory behind docs/decisions.md#bounded-built-ins: every function agent SQL can call, by how the
// cost of one call grows with its arguments. One call is one SQLite step,
// and SQLite looks at the deadline's interrupt only between steps, so a
// call must either cost at most linear time in arguments the value cap
// bounds, or be replaced by code that looks at the interrupt itself.
const (
	// costBounded: super-linear in SQLite's code; agent connections call
	// a Go port that stops at the interrupt (bounded.go).
	costBounded = "bounded"
	// costLinear: at most linear in its arguments, each capped at 8 MiB
	// (or a fixed number of them, up to SQLite's 1000-argument limit).
	costLinear = "linear"
	// costPerRow: an aggregate or window function, or a table-valued one:
	// its work is spread over steps, each of which the interrupt can end.
	costPerRow = "per-row"
	// costNested: runs its own statements on the same connection, which
	// look at the same interrupt flag.
	costNested = "nested"
	// costRefused: the policy refuses the call.
	costRefused = "refused"
)

// builtinCost classifies each function of pragma_function_list, as
// name/number of arguments (-1: any number).
var builtinCost = map[string]string{
	"instr/2": costBounded, "replace/3": costBounded, "trim/2": costBounded, "ltrim/2": costBounded,
	"rtrim/2": costBounded, "like/2": costBounded, "like/3": costBounded, "glob/2": costBounded, "unhex/2": costBounded,

	// json_patch compares every key of the patch with every key of the
	// target (quadratic): bounded by refusing calls over a work bound.
	"json_patch/2": costBounded, "jsonb_patch/2": costBounded,

	// The FTS5 auxiliaries highlight (grows its output by copying it
	// whole for each match) and snippet (scores every match against every
	// other): wrapped, refusing rows over a work bound (bounded_fts5.go).
	"highlight/-1": costBounded, "snippet/-1": costBounded,

	// The path-list JSON functions look up every path in the document:
	// paths x size in one call. Bounded by refusing calls over a work
	// bound (bounded_builtin.go).
	"json_extract/-1": costBounded, "jsonb_extract/-1": costBounded, "json_remove/-1": costBounded,
	"jsonb_remove/-1": costBounded, "json_set/-1": costBounded, "jsonb_set/-1": costBounded,
	"json_insert/-1": costBounded, "jsonb_insert/-1": costBounded, "json_replace/-1": costBounded,
	"jsonb_replace/-1": costBounded, "json_array_insert/-1": costBounded, "jsonb_array_insert/-1": costBounded,

	"load_extension/1": costRefused, "load_extension/2": costRefused,
	"rtreecheck/-1": costNested,

	"avg/1": costPerRow, "count/0": costPerRow, "count/1": costPerRow, "cume_dist/0": costPerRow, "dense_rank/0": costPerRow,
	"first_value/1": costPerRow, "group_concat/1": costPerRow, "group_concat/2": costPerRow, "json_group_array/1": costPerRow,
	"json_group_object/2": costPerRow, "jsonb_group_array/1": costPerRow, "jsonb_group_object/2": costPerRow,
	"lag/1": costPerRow, "lag/2": costPerRow, "lag/3": costPerRow, "last_value/1": costPerRow, "lead/1": costPerRow,
	"lead/2": costPerRow, "lead/3": costPerRow, "max/1": costPerRow, "min/1": costPerRow, "nth_value/2": costPerRow,
	"ntile/1": costPerRow, "percent_rank/0": costPerRow, "rank/0": costPerRow, "row_number/0": costPerRow,
	"string_agg/2": costPerRow, "sum/1": costPerRow, "total/1": costPerRow, "geopoly_group_bbox/1": costPerRow,
}

// linearBuiltins are the rest: constant or linear in their arguments.
var linearBuiltins = strings.Fields(`
	->/2 ->>/2 abs/1 acos/1 acosh/1 asin/1 asinh/1 atan/1 atan2/2 atanh/1 bm25/-1 ceil/1 ceiling/1 changes/0 char/-1
	coalesce/-4 concat/-3 concat_ws/-4 cos/1 cosh/1 current_date/0 current_time/0 current_timestamp/0 date/-1 datetime/-1
	degrees/1 exp/1 floor/1 format/-1 fts5/1 fts5_get_locale/-1 fts5_insttoken/1 fts5_locale/2 fts5_source_id/0
	geopoly_area/1 geopoly_bbox/1 geopoly_blob/1 geopoly_ccw/1 geopoly_contains_point/3 geopoly_debug/1 geopoly_json/1
	geopoly_overlap/2 geopoly_regular/4 geopoly_svg/-1 geopoly_within/2 geopoly_xform/7 hex/1 if/-4 ifnull/2 iif/-4
	json/1 json_array/-1 json_array_length/1 json_array_length/2 json_error_position/1
	 json_object/-1 json_pretty/1 json_pretty/2 json_quote/1 
	 json_type/1 json_type/2 json_valid/1 json_valid/2 jsonb/1 jsonb_array/-1
	 jsonb_object/-1 
	 julianday/-1 last_insert_rowid/0 length/1 likelihood/2 likely/1 ln/1 log/1 log/2 log10/1 log2/1
	lower/1 ltrim/1 match/2 max/-3 min/-3 mod/2 nullif/2 octet_length/1 pi/0 pow/2 power/2 printf/-1 quote/1
	radians/1 random/0 randomblob/1 round/1 round/2 rtreedepth/1 rtreenode/2 rtrim/1 sign/1 sin/1 sinh/1
	soundex/1 sqlite_compileoption_get/1 sqlite_compileoption_used/1 sqlite_log/2 sqlite_offset/1
	sqlite_source_id/0 sqlite_version/0 sqrt/1 strftime/-1 substr/2 substr/3 substring/2 substring/3 subtype/1
	tan/1 tanh/1 time/-1 timediff/2 total_changes/0 trim/1 trunc/1 typeof/1 unhex/1 unicode/1 unistr/1
	unistr_quote/1 unixepoch/-1 unlikely/1 upper/1 zeroblob/1`)

// TestEveryBuiltinIsClassified fails when the driver offers a function the
// inventory has not classified (a driver upgrade that adds one): it must be
// measured (TestMeasureBuiltins) and classified before agents can call it
// unexamined.
func TestEveryBuiltinIsClassified(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query("SELECT DISTINCT name || '/' || narg FROM pragma_function_list ORDER BY 1")
	require.NoError(t, err)
	var names []string
	for rows.Next() {
		var f string
		require.NoError(t, rows.Scan(&f))
		names = append(names, f)
	}
	require.NoError(t, rows.Err())
	classes := map[string]string{}
	for k, v := range builtinCost {
		classes[k] = v
	}
	for _, f := range linearBuiltins {
		assert.NotContains(t, classes, f, "classified twice")
		classes[f] = costLinear
	}
	var offered []string
	for _, f := range names {
		offered = append(offered, f)
		assert.Contains(t, classes, f, "function %s is not in the inventory: measure and classify it", f)
	}
	for f := range classes {
		assert.Contains(t, offered, f, "the inventory lists %s, which the driver no longer offers", f)
	}
	var bounded []string
	for f, c := range classes {
		if c == costBounded {
			bounded = append(bounded, f)
		}
	}
	slices.Sort(bounded)
	want := slices.Clone(boundedNames())
	slices.Sort(want)
	assert.Equal(t, want, bounded, "the inventory's bounded functions are the ones bounded.go replaces")
}

// measureCase is one function on adversarial arguments of size {N},
// measured at n and 2n.
type measureCase struct {
	name, sql string
	n         int
}

var measureCases = []measureCase{
	{"instr", "SELECT instr(printf('%.*c', 3*{N}, 'a'), printf('%.*c', {N}, 'a') || 'b')", 20000},
	{"replace", "SELECT length(replace(printf('%.*c', 3*{N}, 'a'), printf('%.*c', {N}, 'a') || 'b', 'c'))", 20000},
	{"trim", "SELECT length(trim(printf('%.*c', {N}, 'a'), printf('%.*c', {N}, 'b') || 'a'))", 2000},
	{"like", "SELECT printf('%.*c', 16*{N}, 'a') LIKE '%' || printf('%.*c', {N}/8, 'a') || 'b'", 4000},
	{"glob", "SELECT printf('%.*c', 16*{N}, 'a') GLOB '*' || printf('%.*c', {N}/8, 'a') || 'b'", 4000},
	{"unhex", "SELECT length(unhex(printf('%.*c', {N}, 'x'), printf('%.*c', {N}, 'y') || 'x'))", 2000},
	{"json_patch", "SELECT length(json_patch((SELECT json_group_object('a' || value, 1) FROM json_each({array})), " +
		"(SELECT json_group_object('b' || value, 1) FROM json_each({array}))))", 2000},
	{"json_extract 999 paths", "SELECT json_extract((SELECT json_group_object('a' || value, 1) FROM json_each({array}))" +
		strings.Repeat(", '$.zz'", 999) + ")", 8000},
	{"json_set 499 paths", "SELECT length(json_set((SELECT json_group_object('a' || value, 1) FROM json_each({array}))" +
		strings.Repeat(", '$.zz', 1", 499) + "))", 8000},
	{"geopoly_overlap", "SELECT geopoly_overlap({zigzag0}, {zigzag1})", 4000},
	{"upper", "SELECT length(upper(printf('%.*c', 64*{N}, 'a')))", 4000},
	{"printf", "SELECT length(printf('%s%s', printf('%.*c', 64*{N}, 'a'), printf('%.*c', 64*{N}, 'a')))", 4000},
	{"highlight", "SELECT length(highlight(f, 0, '[', ']')) FROM f WHERE f MATCH 'a'", 40000},
	{"snippet", "SELECT length(snippet(f, 0, '[', ']', '...', 64)) FROM f WHERE f MATCH 'a'", 1000},
}

// measureSQL fills in the size and the helpers: {array} is [0, ..., N-1]
// and {zigzagD} a polygon of N edges that all span the same x range, so
// that a sweep line meets all of them at once.
func measureSQL(q string, n int) string {
	count := "(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < {N} - 1) SELECT i FROM s)"
	zigzag := func(dy string) string {
		return "(SELECT '[' || group_concat('[' || (i % 2) * 1000 || ',' || (i + " + dy + ") || ']', ',') || ',[0,0]]' FROM " + count + ")"
	}
	return strings.NewReplacer(
		"{array}", "(SELECT json_group_array(i) FROM "+count+")",
		"{zigzag0}", zigzag("0"), "{zigzag1}", zigzag("0.5"),
	).Replace(q)
}

// TestMeasureBuiltins times each candidate on SQLite's own code at two
// sizes and reports how its cost grows (the exponent k of time ~ N^k).
// It takes a while, so it runs only when MCP_SQLITE_MEASURE is set:
//
//	MCP_SQLITE_MEASURE=1 go test -run TestMeasureBuiltins -v ./adapters/sqlite/
func TestMeasureBuiltins(t *testing.T) {
	if os.Getenv("MCP_SQLITE_MEASURE") == "" {
		t.Skip("set MCP_SQLITE_MEASURE=1 to measure the built-ins")
	}
	ref, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer ref.Close()
	ref.SetMaxOpenConns(1)
	for _, c := range measureCases {
		var took [2]time.Duration
		for i, size := range []int{c.n, 2 * c.n} {
			ns := strconv.Itoa(size)
			if c.name == "highlight" || c.name == "snippet" {
				_, err := ref.Exec("DROP TABLE IF EXISTS f; CREATE VIRTUAL TABLE f USING fts5(x);" +
					"INSERT INTO f VALUES (trim(replace(printf('%.*c', " + ns + ", 'a'), 'a', 'a ')))")
				require.NoError(t, err)
			}
			q := strings.ReplaceAll(measureSQL(c.sql, size), "{N}", ns)
			start := time.Now()
			var v any
			err := ref.QueryRowContext(context.Background(), q).Scan(&v)
			took[i] = time.Since(start)
			require.NoError(t, err, c.name)
		}
		k := math.Log2(float64(took[1]) / float64(took[0]))
		t.Logf("%-24s N=%6d: %10v   N=%6d: %10v   growth exponent %.1f", c.name, c.n, took[0].Round(time.Microsecond),
			2*c.n, took[1].Round(time.Microsecond), k)
	}
}

// boundedNames lists what bounded.go replaces, as name/argument count.
func boundedNames() []string { return engine.BoundedFunctions() }
