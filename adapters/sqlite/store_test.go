package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

func mustOpen(t *testing.T) *testDB {
	t.Helper()
	s, err := openTestDB(context.Background(), filepath.Join(t.TempDir(), "t.db"), sqlite.Options{QueryTimeout: 2 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func write(t *testing.T, s *testDB, tier domain.Tier, q string) (domain.WriteResult, error) {
	t.Helper()
	return s.Write(context.Background(), domain.WriteRequest{Tier: tier, SQL: q}, func([]string) {}, func([]any) bool { return true })
}

func mustWrite(t *testing.T, s *testDB, q string) domain.WriteResult {
	t.Helper()
	r, err := write(t, s, domain.TierDestructive, q)
	require.NoError(t, err, q)
	return r
}

func readAll(t *testing.T, s *testDB, q string) ([]string, [][]any, error) {
	t.Helper()
	var cols []string
	var rows [][]any
	err := s.Read(context.Background(), q, func(c []string) { cols = c }, func(r []any) bool {
		rows = append(rows, append([]any(nil), r...))
		return true
	})
	return cols, rows, err
}

func TestReadKeepsValuesAsStored(t *testing.T) {
	s := mustOpen(t)
	mustWrite(t, s, "CREATE TABLE t (d DATETIME, n INTEGER, f REAL, b BLOB)")
	mustWrite(t, s, "INSERT INTO t VALUES ('2024-01-02 03:04:05', 7, 1.5, x'0102')")
	cols, rows, err := readAll(t, s, "SELECT d, n, f, b, NULL FROM t")
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "n", "f", "b", "NULL"}, cols)
	assert.Equal(t, [][]any{{"2024-01-02 03:04:05", int64(7), 1.5, domain.Blob(2), nil}}, rows)
}

func TestOneStatementPerCall(t *testing.T) {
	s := mustOpen(t)
	for _, q := range []string{"SELECT 1;", "SELECT 1; -- done", "SELECT 1 /* c */ ;\n/* trailing */", "-- only a comment"} {
		_, _, err := readAll(t, s, q)
		assert.NoError(t, err, q)
	}
	for _, q := range []string{"SELECT 1;;", "SELECT 1; SELECT 2", "SELECT 1; DROP TABLE query_log"} {
		_, _, err := readAll(t, s, q)
		assert.ErrorIs(t, err, domain.ErrInvalidArgument, q)
	}
}

func TestParametersAreRefusedBeforeRunning(t *testing.T) {
	s := mustOpen(t)
	for _, q := range []string{"SELECT ?", "SELECT :x", "SELECT @x", "SELECT $x"} {
		_, _, err := readAll(t, s, q)
		assert.ErrorIs(t, err, domain.ErrInvalidArgument, q)
	}
}

func TestReadTierRefusesWrites(t *testing.T) {
	s := mustOpen(t)
	mustWrite(t, s, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
	for _, q := range []string{
		"INSERT INTO notes(body) VALUES ('x')",
		"WITH x AS (SELECT 1) UPDATE notes SET body = 'y'",
		"EXPLAIN DELETE FROM notes",
		"ATTACH 'other.db' AS o",
		"VACUUM",
		"PRAGMA journal_mode = DELETE",
		"SELECT load_extension('x')",
		"CREATE TEMP TABLE t (a)",
		"BEGIN",
	} {
		_, _, err := readAll(t, s, q)
		assert.ErrorIs(t, err, domain.ErrPolicy, q)
	}
}

func TestReadDeadlineInterruptsSQLite(t *testing.T) {
	s := mustOpen(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Read(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c", func([]string) {}, func([]any) bool { return true })
	require.ErrorIs(t, err, domain.ErrTimeout)
	assert.Less(t, time.Since(start), slack.Of(5*time.Second))
	_, rows, err := readAll(t, s, "SELECT 42")
	require.NoError(t, err, "the connection works after an interrupt")
	assert.Equal(t, [][]any{{int64(42)}}, rows)
}

func TestWriteResult(t *testing.T) {
	s := mustOpen(t)
	r := mustWrite(t, s, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT UNIQUE, n INT DEFAULT 0)")
	assert.True(t, r.Schema)
	r, err := write(t, s, domain.TierWrite, "INSERT INTO notes(body) VALUES ('a'), ('b')")
	require.NoError(t, err)
	assert.Equal(t, domain.WriteResult{RowsAffected: 2, LastInsertRowID: 2}, r)
	r, err = write(t, s, domain.TierWrite, "WITH x AS (SELECT 1) UPDATE notes SET n = n + 1")
	require.NoError(t, err)
	assert.Equal(t, int64(2), r.RowsAffected, "WITH ... UPDATE reports the real count")
	assert.Zero(t, r.LastInsertRowID)
}

func guarded(t *testing.T, s *testDB, q string, limit int) error {
	t.Helper()
	_, err := s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierWrite, SQL: q, MaxUpdateRows: limit}, func([]string) {}, func([]any) bool { return true })
	return err
}

func TestUpdateGuardCountsEveryChangedRow(t *testing.T) {
	s := mustOpen(t)
	mustWrite(t, s, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT UNIQUE, n INT DEFAULT 0)")
	mustWrite(t, s, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 10) INSERT INTO notes(body) SELECT 'v' || x FROM c")
	cases := map[string]string{
		"plain update": "UPDATE notes SET n = 1",
		"with update":  "WITH x AS (SELECT 1) UPDATE notes SET n = 2",
		"replace":      "REPLACE INTO notes(id, body) SELECT id, body FROM notes",
		"upsert":       "INSERT INTO notes(body) SELECT body FROM notes WHERE true ON CONFLICT(body) DO UPDATE SET n = n + 1",
		"update view":  "UPDATE notes SET n = n WHERE id > 0",
	}
	for name, q := range cases {
		t.Run(name, func(t *testing.T) {
			err := guarded(t, s, q, 5)
			require.ErrorIs(t, err, domain.ErrGuard)
			_, rows, err := readAll(t, s, "SELECT sum(n), count(*) FROM notes")
			require.NoError(t, err)
			assert.Equal(t, [][]any{{int64(0), int64(10)}}, rows, "rolled back")
		})
	}
	assert.NoError(t, guarded(t, s, "UPDATE notes SET n = 1 WHERE id <= 5", 5))
	assert.NoError(t, guarded(t, s, "INSERT INTO notes(body) VALUES ('new1'), ('new2'), ('new3'), ('new4'), ('new5'), ('new6')", 5), "inserts are not guarded")
}

func TestServerTablesAreAppendOnly(t *testing.T) {
	s := mustOpen(t)
	for _, tier := range []domain.Tier{domain.TierWrite, domain.TierDestructive} {
		for _, q := range []string{
			"INSERT INTO memory_events(id, ts, session, kind, content, prev_hash, hash) VALUES (1,'t','s','k','c','p','h')",
			"DELETE FROM query_log",
			"UPDATE memory_checkpoints SET summary = 'x'",
			"DROP TABLE query_log",
			"DROP VIEW query_errors",
			"ALTER TABLE memory_events RENAME TO x",
			"CREATE TRIGGER evil AFTER INSERT ON query_log BEGIN SELECT 1; END",
			"CREATE INDEX evil ON memory_events(content)",
		} {
			_, err := write(t, s, tier, q)
			assert.ErrorIs(t, err, domain.ErrPolicy, "%s: %s", tier.Tool(), q)
		}
	}
}
