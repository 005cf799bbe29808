package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// The read tier keeps compiled statements per connection (stmtcache.go).
// These tests change the schema behind a kept statement, from another
// program's connection, and check that both layers decide again: the
// authorizer when SQLite recompiles, the EXPLAIN inspection after it.

// cacheRead runs sql in the read tier and returns its column names and rows.
func cacheRead(t *testing.T, s *testDB, q string) ([]string, [][]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var cols []string
	var rows [][]any
	err := s.Read(ctx, q, func(c []string) { cols = c }, func(r []any) bool {
		rows = append(rows, append([]any(nil), r...))
		return true
	})
	return cols, rows, err
}

// otherProgram changes the file through a connection of its own, as
// another program would.
func otherProgram(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	defer db.Close()
	for _, q := range stmts {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

func TestStmtCacheKeepsRepeatedRead(t *testing.T) {
	path := mustLayersDB(t)
	s := mustOpenWith(t, path, sqlite.Options{})
	const q = "SELECT id, body FROM notes WHERE id = 2"
	_, _, err := cacheRead(t, s, q)
	require.NoError(t, err)
	_, _, _, inspects, _ := s.StmtCacheStats(q)
	assert.Zero(t, inspects, "SQL seen once is not kept: one-off SQL would take memory every compile uses")
	for range 3 {
		_, rows, err := cacheRead(t, s, q)
		require.NoError(t, err)
		assert.Equal(t, [][]any{{int64(2), "banana split"}}, rows)
	}
	_, stmts, _, inspects, _ := s.StmtCacheStats(q)
	assert.Equal(t, 1, inspects, "kept from its second compile, inspected once since")
	assert.GreaterOrEqual(t, stmts, 1)
	// Statements that are not plain reads are never kept.
	for _, q := range []string{"PRAGMA table_info(notes)", "SELECT * FROM pragma_table_info('notes')", "EXPLAIN SELECT 1"} {
		for range 2 {
			_, _, err := cacheRead(t, s, q)
			require.NoError(t, err, q)
		}
		_, _, _, inspects, _ := s.StmtCacheStats(q)
		if strings.HasPrefix(q, "PRAGMA") {
			assert.Zero(t, inspects, "%s is not kept", q)
		}
	}
}

func TestStmtCacheRecompileAsksTheAuthorizerAgain(t *testing.T) {
	path := mustLayersDB(t)
	otherProgram(t, path, "CREATE TABLE x (a)", "INSERT INTO x VALUES (1)")
	s := mustOpenWith(t, path, sqlite.Options{})
	const q = "SELECT * FROM x"
	for range 2 {
		_, _, err := cacheRead(t, s, q)
		require.NoError(t, err)
	}
	// x becomes a view over the one pragma the read tier refuses whatever
	// shape the query has (it names the file).
	otherProgram(t, path, "DROP TABLE x", "CREATE VIEW x AS SELECT * FROM pragma_database_list")
	_, _, err := cacheRead(t, s, q)
	require.Error(t, err)
	assert.ErrorIs(t, err, domain.ErrPolicy, "the recompiled statement is refused: %v", err)
	assert.Contains(t, err.Error(), "database_list")
	_, _, _, inspects, _ := s.StmtCacheStats(q)
	assert.Zero(t, inspects, "a refused statement is no longer kept")
}

// TestStmtCacheRecompileWithoutAuthorizer: with the authorizer off, a kept
// statement whose table became a view calling load_extension is still
// refused, with no row sent. (SQLite refuses the unsafe function in a view
// itself; TestStmtCacheRecompileSeesNewColumns shows the new program is
// inspected.)
func TestStmtCacheRecompileWithoutAuthorizer(t *testing.T) {
	path := mustLayersDB(t)
	otherProgram(t, path, "CREATE TABLE x (a)", "INSERT INTO x VALUES (1)")
	// Without the authorizer only the EXPLAIN layer stands.
	s := mustOpenWith(t, path, sqlite.WithoutAuthorizer(sqlite.Options{}))
	const q = "SELECT * FROM x"
	for range 2 {
		_, _, err := cacheRead(t, s, q)
		require.NoError(t, err)
	}
	otherProgram(t, path, "DROP TABLE x", "CREATE VIEW x AS SELECT load_extension('/nonexistent/lib') AS a")
	_, rows, err := cacheRead(t, s, q)
	require.Error(t, err, "rows: %v", rows)
	assert.Contains(t, err.Error(), "load_extension")
	assert.Empty(t, rows, "no row left before the new program was inspected")
}

func TestStmtCacheRecompileSeesNewColumns(t *testing.T) {
	path := mustLayersDB(t)
	otherProgram(t, path, "CREATE TABLE x (a)", "INSERT INTO x VALUES (1)")
	s := mustOpenWith(t, path, sqlite.Options{})
	const q = "SELECT * FROM x"
	_, _, err := cacheRead(t, s, q)
	require.NoError(t, err)
	cols, rows, err := cacheRead(t, s, q) // kept from here on
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, cols)
	assert.Equal(t, [][]any{{int64(1)}}, rows)
	otherProgram(t, path, "ALTER TABLE x ADD COLUMN b DEFAULT 'two'")
	cols, rows, err = cacheRead(t, s, q)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, cols)
	assert.Equal(t, [][]any{{int64(1), "two"}}, rows)
	_, _, _, inspects, _ := s.StmtCacheStats(q)
	assert.Equal(t, 2, inspects, "the recompiled program was inspected once more")
}

func TestStmtCacheIsBounded(t *testing.T) {
	path := mustLayersDB(t)
	s := mustOpenWith(t, path, sqlite.Options{})
	for i := range 3 * sqlite.StmtCacheEntries {
		for range 2 { // kept from the second call on
			_, _, err := cacheRead(t, s, fmt.Sprintf("SELECT body FROM notes WHERE id = %d", i))
			require.NoError(t, err)
		}
	}
	big := "SELECT 1 /*" + strings.Repeat("x", 40<<10) + "*/"
	for range 2 {
		_, _, err := cacheRead(t, s, big)
		require.NoError(t, err)
	}
	conns, stmts, maxBytes, inspects, _ := s.StmtCacheStats(big)
	assert.Positive(t, stmts)
	assert.LessOrEqual(t, stmts, conns*sqlite.StmtCacheEntries)
	assert.LessOrEqual(t, maxBytes, sqlite.StmtCacheBytes)
	assert.Zero(t, inspects, "a statement of 40 KiB is not kept")
}

// TestStmtCacheFreesClosedConnections: the pool closes connections beyond
// its idle limit; their kept statements are finalized, or SQLite would keep
// each closed connection's memory and file open for ever.
func TestStmtCacheFreesClosedConnections(t *testing.T) {
	path := mustLayersDB(t)
	s := mustOpenWith(t, path, sqlite.Options{})
	const n = 8 // above the pool's 4 idle connections
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			once := true
			_ = s.Read(context.Background(), "SELECT id FROM notes", func([]string) {}, func([]any) bool {
				if once {
					once = false
					started.Done()
					release.Wait()
				}
				return true
			})
		})
	}
	started.Wait()
	conns, _, _, _, open := s.StmtCacheStats("")
	require.Equal(t, n, conns, "every concurrent read keeps its statement")
	require.Equal(t, n, open)
	release.Done()
	wg.Wait()
	// A read sweeps once sweepEvery has passed since the last sweep: read
	// until the closed connections' statements are gone.
	for deadline := time.Now().Add(slack.Of(10 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		_, _, err := cacheRead(t, s, "SELECT 1")
		require.NoError(t, err)
		conns, _, _, _, open = s.StmtCacheStats("")
		if (open < n && open == conns) || time.Now().After(deadline) {
			break
		}
	}
	assert.Less(t, open, n, "the pool closed the connections beyond its idle limit")
	assert.Equal(t, open, conns, "only open connections keep statements")
}
