package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// guardLimit is the UPDATE guard cap in these tests; every fixture table
// holds guardRows rows, more than it.
const (
	guardLimit = 50
	guardRows  = 60
)

func guardWrite(s *testDB, q string, limit int) (domain.WriteResult, error) {
	return s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierWrite, SQL: q, MaxUpdateRows: limit},
		func([]string) {}, func([]any) bool { return true })
}

// guardFixture builds one table of every kind the write tier can change,
// each with guardRows rows.
func guardFixture(t *testing.T) *testDB {
	t.Helper()
	s := mustOpen(t)
	series := fmt.Sprintf("WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < %d) ", guardRows)
	for _, q := range []string{
		"CREATE TABLE plain (id INTEGER PRIMARY KEY, v INT, u TEXT UNIQUE)",
		"INSERT INTO plain " + series + "SELECT n, n, 'u' || n FROM g",
		"CREATE TABLE wr (k TEXT PRIMARY KEY, v INT) WITHOUT ROWID",
		"INSERT INTO wr " + series + "SELECT 'k' || n, n FROM g",
		"CREATE VIRTUAL TABLE docs USING fts5(body)",
		"INSERT INTO docs (rowid, body) " + series + "SELECT n, 'hello ' || n FROM g",
		"CREATE VIRTUAL TABLE bare USING fts5(body, content='')",
		"INSERT INTO bare (rowid, body) " + series + "SELECT n, 'hello ' || n FROM g",
		"CREATE VIRTUAL TABLE ext USING fts5(v, content='plain', content_rowid='id')",
		"INSERT INTO ext (ext) VALUES ('rebuild')",
		"CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1)",
		"INSERT INTO boxes " + series + "SELECT n, n, n + 1 FROM g",
		"CREATE TABLE hits (id INTEGER PRIMARY KEY, what TEXT)",
	} {
		mustWrite(t, s, q)
	}
	return s
}

// TestGuardCountsEveryKindOfTable: a statement that changes more rows than
// the cap is rolled back whatever kind of table the rows live in and
// however they are reached: directly, through triggers (nested too),
// REPLACE, upsert or RETURNING.
func TestGuardCountsEveryKindOfTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   []string
		q       string
		checkIn string // a query whose answer must not change
	}{
		{name: "rowid table", q: "UPDATE plain SET v = v + 1", checkIn: "SELECT sum(v) FROM plain"},
		{name: "RETURNING", q: "UPDATE plain SET v = v + 1 RETURNING id", checkIn: "SELECT sum(v) FROM plain"},
		{name: "WITHOUT ROWID", q: "UPDATE wr SET v = v + 1", checkIn: "SELECT sum(v) FROM wr"},
		{name: "REPLACE", q: "REPLACE INTO plain SELECT id, v + 1, u FROM plain", checkIn: "SELECT sum(v) FROM plain"},
		{name: "REPLACE on a UNIQUE column", q: "REPLACE INTO plain (id, v, u) SELECT id + 1000, v, u FROM plain", checkIn: "SELECT sum(id) FROM plain"},
		{name: "REPLACE WITHOUT ROWID", q: "REPLACE INTO wr SELECT k, v + 1 FROM wr", checkIn: "SELECT sum(v) FROM wr"},
		{name: "upsert", q: "INSERT INTO plain SELECT * FROM plain WHERE true ON CONFLICT (id) DO UPDATE SET v = excluded.v + 1", checkIn: "SELECT sum(v) FROM plain"},
		{name: "fts5", q: "UPDATE docs SET body = 'bye'", checkIn: "SELECT count(*) FROM docs WHERE docs MATCH 'hello'"},
		{name: "fts5 REPLACE", q: "REPLACE INTO docs (rowid, body) SELECT rowid, 'bye' FROM docs", checkIn: "SELECT count(*) FROM docs WHERE docs MATCH 'hello'"},
		{name: "rtree", q: "UPDATE boxes SET x1 = x1 + 1", checkIn: "SELECT sum(x1) FROM boxes"},
		{name: "rtree REPLACE", q: "INSERT OR REPLACE INTO boxes SELECT id, x0, x1 + 1 FROM boxes", checkIn: "SELECT sum(x1) FROM boxes"},
		{
			name:    "trigger on a rowid table",
			setup:   []string{"CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN UPDATE plain SET v = v + 1; END"},
			q:       "INSERT INTO hits (what) VALUES ('x')",
			checkIn: "SELECT sum(v) FROM plain",
		},
		{
			name: "nested triggers",
			setup: []string{
				"CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN UPDATE wr SET v = v + 1 WHERE k = 'k1'; END",
				"CREATE TRIGGER t2 AFTER UPDATE ON wr BEGIN UPDATE plain SET v = v + 1; END",
			},
			q:       "INSERT INTO hits (what) VALUES ('x')",
			checkIn: "SELECT sum(v) FROM plain",
		},
		{
			name:    "trigger on fts5",
			setup:   []string{"CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN UPDATE docs SET body = body || '!'; END"},
			q:       "INSERT INTO hits (what) VALUES ('x')",
			checkIn: "SELECT count(*) FROM docs WHERE body LIKE '%!'",
		},
		{
			name:    "trigger on rtree",
			setup:   []string{"CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN UPDATE boxes SET x1 = x1 + 1; END"},
			q:       "INSERT INTO hits (what) VALUES ('x')",
			checkIn: "SELECT sum(x1) FROM boxes",
		},
		{
			name:    "trigger REPLACE into fts5",
			setup:   []string{"CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN REPLACE INTO docs (rowid, body) SELECT rowid, 'bye' FROM docs; END"},
			q:       "INSERT INTO hits (what) VALUES ('x')",
			checkIn: "SELECT count(*) FROM docs WHERE docs MATCH 'hello'",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := guardFixture(t)
			for _, q := range tc.setup {
				mustWrite(t, s, q)
			}
			_, before, err := readAll(t, s, tc.checkIn)
			require.NoError(t, err)
			_, err = guardWrite(s, tc.q, guardLimit)
			require.ErrorIs(t, err, domain.ErrGuard, tc.q)
			assert.Contains(t, err.Error(), "destructive_query")
			_, after, err := readAll(t, s, tc.checkIn)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the statement was rolled back")
			_, hits, err := readAll(t, s, "SELECT count(*) FROM hits")
			require.NoError(t, err)
			assert.Equal(t, int64(0), hits[0][0])

			_, err = guardWrite(s, tc.q, 100*guardRows)
			assert.NoError(t, err, "under a cap large enough the same statement runs")
		})
	}
}

// TestGuardCountIsExactWhereSQLiteCountsExactly: the refusal names the
// number of rows, exactly where SQLite's counters allow it.
func TestGuardCountIsExactWhereSQLiteCountsExactly(t *testing.T) {
	s := guardFixture(t)
	for _, q := range []string{
		"UPDATE plain SET v = v + 1", "UPDATE wr SET v = v + 1", "UPDATE docs SET body = 'x'",
		"UPDATE boxes SET x1 = x1 + 1", "REPLACE INTO docs (rowid, body) SELECT rowid, 'bye' FROM docs",
	} {
		_, err := guardWrite(s, q, guardLimit)
		require.ErrorIs(t, err, domain.ErrGuard, q)
		assert.Contains(t, err.Error(), fmt.Sprintf("would change %d rows", guardRows), q)
	}
	mustWrite(t, s, "CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN UPDATE docs SET body = body || '!'; END")
	_, err := guardWrite(s, "INSERT INTO hits (what) VALUES ('x')", guardLimit)
	require.ErrorIs(t, err, domain.ErrGuard)
	assert.Contains(t, err.Error(), "up to", "a trigger writing a virtual table is counted from above, and the message says so")
}

// TestGuardLetsInsertsAndSmallChangesThrough: inserts are not overwrites,
// in any kind of table, and a change under the cap runs.
func TestGuardLetsInsertsAndSmallChangesThrough(t *testing.T) {
	s := guardFixture(t)
	series := "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 200) "
	for _, q := range []string{
		"INSERT INTO plain (v, u) " + series + "SELECT n, 'new' || n FROM g",
		"INSERT INTO wr " + series + "SELECT 'new' || n, n FROM g",
		"INSERT INTO docs (body) " + series + "SELECT 'new ' || n FROM g",
		"INSERT INTO bare (rowid, body) " + series + "SELECT 1000 + n, 'new ' || n FROM g",
		"INSERT INTO boxes " + series + "SELECT 1000 + n, n, n + 1 FROM g",
		"UPDATE plain SET v = 0 WHERE id <= 10",
		"UPDATE docs SET body = 'x' WHERE rowid <= 10",
	} {
		_, err := guardWrite(s, q, guardLimit)
		assert.NoError(t, err, q)
	}
	// An insert whose trigger writes a virtual table row by row.
	mustWrite(t, s, "CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN INSERT INTO docs (body) VALUES (new.what); END")
	_, err := guardWrite(s, "INSERT INTO hits (what) "+series+"SELECT 'w' || n FROM g", guardLimit)
	assert.NoError(t, err, "rows a trigger adds to a virtual table are inserts")
}

// TestForeignKeyActionsDoNotRun: foreign keys are off on every connection
// (and PRAGMA foreign_keys = ON is refused), so no ON UPDATE action can
// change rows behind the guard's back.
func TestForeignKeyActionsDoNotRun(t *testing.T) {
	s := guardFixture(t)
	mustWrite(t, s, "CREATE TABLE parent (id INTEGER PRIMARY KEY)")
	mustWrite(t, s, "CREATE TABLE child (id INTEGER PRIMARY KEY, p INT REFERENCES parent (id) ON UPDATE CASCADE ON DELETE CASCADE)")
	mustWrite(t, s, "INSERT INTO parent VALUES (1)")
	mustWrite(t, s, "INSERT INTO child (p) WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 60) SELECT 1 FROM g")
	_, err := guardWrite(s, "PRAGMA foreign_keys = ON", guardLimit)
	require.ErrorIs(t, err, domain.ErrPolicy)
	_, err = guardWrite(s, "UPDATE parent SET id = 2", guardLimit)
	require.NoError(t, err)
	_, rows, err := readAll(t, s, "SELECT count(*) FROM child WHERE p = 1")
	require.NoError(t, err)
	assert.Equal(t, int64(60), rows[0][0], "no cascade ran")
}

// TestIndexWipesNeedDestructiveQuery: FTS5's 'delete-all' and 'rebuild'
// empty an index (and on a contentless table the data itself); write_query
// refuses them, however they are sent, and destructive_query runs them.
// Commands that only change the index's layout, and row-level 'delete',
// stay in write_query.
func TestIndexWipesNeedDestructiveQuery(t *testing.T) {
	for _, tc := range []struct{ name, setup, q string }{
		{name: "delete-all on a contentless table", q: "INSERT INTO bare (bare) VALUES ('delete-all')"},
		{name: "delete-all on an external-content table", q: "INSERT INTO ext (ext) VALUES ('delete-all')"},
		{name: "rebuild", q: "INSERT INTO docs (docs) VALUES ('rebuild')"},
		{name: "rebuild of an external-content table", q: "INSERT INTO ext (ext) VALUES ('rebuild')"},
		{name: "spelled in a SELECT", q: "INSERT INTO bare (bare) SELECT 'delete' || '-all'"},
		{name: "column list by position", q: "INSERT INTO docs (body, docs) VALUES (NULL, 'rebuild')"},
		{
			name:  "from a trigger",
			setup: "CREATE TRIGGER t1 AFTER INSERT ON hits BEGIN INSERT INTO bare (bare) VALUES (new.what); END",
			q:     "INSERT INTO hits (what) VALUES ('delete-all')",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := guardFixture(t)
			if tc.setup != "" {
				mustWrite(t, s, tc.setup)
			}
			count := "SELECT (SELECT count(*) FROM bare_docsize), (SELECT count(*) FROM ext WHERE ext MATCH 'u1'), (SELECT count(*) FROM docs WHERE docs MATCH 'hello')"
			_, before, err := readAll(t, s, count)
			require.NoError(t, err)
			for _, limit := range []int{0, guardLimit} {
				_, err = guardWrite(s, tc.q, limit)
				require.ErrorIs(t, err, domain.ErrPolicy, tc.q)
				assert.Contains(t, err.Error(), "destructive_query")
				assert.Contains(t, err.Error(), "full-text index")
			}
			_, after, err := readAll(t, s, count)
			require.NoError(t, err)
			assert.Equal(t, before, after, "nothing changed")
			_, err = write(t, s, domain.TierDestructive, tc.q)
			assert.NoError(t, err, "destructive_query runs it")
		})
	}
	s := guardFixture(t)
	for _, q := range []string{
		"INSERT INTO docs (docs) VALUES ('optimize')",
		"INSERT INTO docs (docs, rank) VALUES ('merge', 10)",
		"INSERT INTO docs (docs, rank) VALUES ('automerge', 4)",
		"INSERT INTO docs (docs) VALUES ('integrity-check')",
		"INSERT INTO bare (bare, rowid, body) VALUES ('delete', 3, 'hello 3')",
	} {
		_, err := guardWrite(s, q, guardLimit)
		assert.NoError(t, err, q)
	}
	// The external-content pattern: triggers keep the index in step with
	// 'delete' and an insert per changed row.
	mustWrite(t, s, "CREATE TRIGGER sync AFTER UPDATE ON plain BEGIN INSERT INTO ext (ext, rowid, v) VALUES ('delete', old.id, old.v); INSERT INTO ext (rowid, v) VALUES (new.id, new.v); END")
	_, err := guardWrite(s, "UPDATE plain SET v = v + 100 WHERE id <= 5", guardLimit)
	assert.NoError(t, err)
}

func TestWholeTableDelete(t *testing.T) {
	for sql, want := range map[string]bool{
		`DELETE FROM "main"."docs_data";`:                      true,
		"  delete\n from 'main'.'docs_idx'":                    true,
		`DELETE FROM "main"."docs_data" WHERE id>=? AND id<=?`: false,
		"DELETE FROM x WHERE\tid = ?":                          false,
		"DELETE FROM x where id = ?":                           false,
		"REPLACE INTO x VALUES (?, ?)":                         false,
		"SELECT 1":                                             false,
		"DELETE":                                               false,
		"":                                                     false,
	} {
		assert.Equal(t, want, sqlite.WholeTableDelete(sql), sql)
	}
}
