package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inventory of work a virtual table does inside one step (xFilter,
// xNext, xUpdate, COMMIT's xSync), next to the built-ins'
// (bounded_measure_test.go). Each module the driver compiles in is
// classified by whether the deadline's interrupt ends its work; the
// measurements are docs/decisions.md's (#single-steps).
var moduleCost = map[string]string{
	// FTS5 reads its index through blob handles, which stop at the
	// interrupt; its query parse and its tokenizing do not, and are
	// bounded (bounded_vtab.go, bounded_tokenize.go).
	"fts5": costBounded,
	// Row by row, reading the index through SQLite.
	"fts5vocab": costPerRow,
	// Nodes read through blob handles; at most 20 constraints.
	"rtree": costPerRow, "rtree_i32": costPerRow, "geopoly": costPerRow,
	// One page or one pragma row per step.
	"dbstat": costPerRow, "sqlite_dbpage": costPerRow, "pragma_module_list": costPerRow,
}

// TestEveryModuleIsClassified fails when the driver offers a module the
// inventory has not classified.
func TestEveryModuleIsClassified(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query("SELECT name FROM pragma_module_list ORDER BY 1")
	require.NoError(t, err)
	var offered []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		offered = append(offered, n)
	}
	require.NoError(t, rows.Err())
	for _, m := range offered {
		assert.Contains(t, moduleCost, m, "module %s is not in the inventory: measure and classify it", m)
	}
	for m := range moduleCost {
		assert.True(t, slices.Contains(offered, m), "the inventory lists %s, which the driver no longer offers", m)
	}
}

// vtabCase is one piece of virtual-table work at size {N}: sql runs after
// setup, in one transaction that commits.
type vtabCase struct {
	name, setup, sql string
	n                int
}

var vtabCases = []vtabCase{
	{"fts5 parse, ORs", "", "SELECT count(*) FROM f WHERE f MATCH 'a' || replace(printf('%.*c', {N}, 'x'), 'x', ' OR a')", 10000},
	{"fts5 parse, ANDs", "", "SELECT count(*) FROM f WHERE f MATCH 'a' || replace(printf('%.*c', {N}, 'x'), 'x', ' AND a')", 10000},
	{"fts5 parse, juxtaposed", "", "SELECT count(*) FROM f WHERE f MATCH 'a' || replace(printf('%.*c', {N}, 'x'), 'x', ' a')", 10000},
	{"fts5 parse, one phrase", "", "SELECT count(*) FROM f WHERE f MATCH '\"a' || replace(printf('%.*c', {N}, 'x'), 'x', ' a') || '\"'", 20000},
	{"fts5 parse, NEAR", "", "SELECT count(*) FROM f WHERE f MATCH 'NEAR(a' || replace(printf('%.*c', {N}, 'x'), 'x', ' a') || ')'", 20000},
	{"fts5 index, distinct terms", "DELETE FROM f", "INSERT INTO f VALUES (replace(hex(randomblob(8 * {N})), '0', ' '))", 62500},
	{"fts5 index, one term repeated", "DELETE FROM f", "INSERT INTO f VALUES (replace(printf('%.*c', {N}, 'x'), 'x', 'fox '))", 1000000},
	{"fts5 prefix queries", "", "SELECT count(*) FROM big WHERE big MATCH 't*' || replace(printf('%.*c', {N}, 'x'), 'x', ' t*')", 10},
	{"fts5vocab", "", "SELECT count(*) FROM v", 1},
	{"rtree, every node", "", "SELECT count(*) FROM r WHERE x0 > {N}", 0},
	{"json_each", "", "SELECT count(*) FROM json_each('[' || replace(printf('%.*c', {N}, 'x'), 'x', '1,') || '1]')", 1000000},
	{"json_tree", "", "SELECT count(*) FROM json_tree('[' || replace(printf('%.*c', {N}, 'x'), 'x', '1,') || '1]')", 1000000},
}

// TestMeasureVirtualTables times each case on SQLite's own code at two
// sizes (the exponent k of time ~ N^k; the statement and its COMMIT), and
// how long after a 200 ms deadline the statement stopped. It takes a
// while, so it runs only when MCP_SQLITE_MEASURE is set:
//
//	MCP_SQLITE_MEASURE=1 go test -run TestMeasureVirtualTables -v ./adapters/sqlite/
func TestMeasureVirtualTables(t *testing.T) {
	if os.Getenv("MCP_SQLITE_MEASURE") == "" {
		t.Skip("set MCP_SQLITE_MEASURE=1 to measure the virtual tables")
	}
	ref, err := sql.Open("sqlite", "file:"+t.TempDir()+"/m.db")
	require.NoError(t, err)
	defer ref.Close()
	ref.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE VIRTUAL TABLE f USING fts5(x)",
		"INSERT INTO f VALUES ('a b c')",
		"CREATE VIRTUAL TABLE big USING fts5(x)",
		"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000) INSERT INTO big SELECT 't' || i FROM c",
		"CREATE VIRTUAL TABLE v USING fts5vocab(big, 'instance')",
		"CREATE VIRTUAL TABLE r USING rtree(id, x0, x1)",
		"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000) INSERT INTO r SELECT i, i, i + 0.5 FROM c",
	} {
		_, err := ref.Exec(q)
		require.NoError(t, err, q)
	}
	ctx := context.Background()
	conn, err := ref.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	run := func(c vtabCase, size int, deadline time.Duration) (stmt, commit time.Duration, err error) {
		if c.setup != "" {
			if _, err := conn.ExecContext(ctx, c.setup); err != nil {
				return 0, 0, err
			}
		}
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
			return 0, 0, err
		}
		defer func() { _, _ = conn.ExecContext(ctx, "ROLLBACK") }()
		sctx, cancel := context.WithTimeout(ctx, deadline)
		defer cancel()
		start := time.Now()
		_, err = conn.ExecContext(sctx, strings.ReplaceAll(c.sql, "{N}", strconv.Itoa(size)))
		stmt = time.Since(start)
		if err != nil {
			return stmt, 0, err
		}
		start = time.Now()
		_, err = conn.ExecContext(sctx, "COMMIT")
		return stmt, time.Since(start), err
	}
	for _, c := range vtabCases {
		var took [2]time.Duration
		var line string
		for i, size := range []int{c.n, 2 * c.n} {
			stmt, commit, err := run(c, size, time.Hour)
			require.NoError(t, err, c.name)
			took[i] = stmt + commit
			line += fmt.Sprintf("   N=%7d: %9v + COMMIT %9v", size, stmt.Round(time.Millisecond), commit.Round(time.Millisecond))
		}
		k := math.Log2(float64(took[1]) / float64(took[0]))
		stmt, commit, err := run(c, 4*c.n, 200*time.Millisecond)
		t.Logf("%-30s%s   exponent %.1f   at 4N with a 200 ms deadline: %v after %v", c.name, line, k, err, (stmt + commit).Round(time.Millisecond))
	}
}
