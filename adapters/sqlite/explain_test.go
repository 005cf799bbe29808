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
)

// The read tier has two independent layers: the authorizer and, behind it,
// the inspection of the compiled program (explain.go). These tests switch
// the authorizer off (WithoutAuthorizer) to show that the EXPLAIN layer
// refuses every kind of write on its own, and run a wide set of legitimate
// reads through both layers to show that it never refuses one.

// layersSchema is the database the layer tests run against: plain tables
// with an index, a foreign key and a trigger, a view, an FTS5 and an R*Tree
// table.
var layersSchema = []string{
	"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, tag TEXT)",
	"INSERT INTO notes (body, tag) VALUES ('apple pie', 'a'), ('banana split', 'b'), ('cherry tart', 'a')",
	"CREATE INDEX notes_tag ON notes (tag)",
	"CREATE TABLE links (id INTEGER PRIMARY KEY, note_id INTEGER REFERENCES notes (id), label TEXT)",
	"INSERT INTO links (note_id, label) VALUES (1, 'x'), (1, 'y'), (3, 'z')",
	"CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN UPDATE links SET label = label WHERE note_id = new.id; END",
	"CREATE VIRTUAL TABLE docs USING fts5 (body)",
	"INSERT INTO docs (rowid, body) VALUES (1, 'apple pie'), (2, 'banana split'), (3, 'apple and banana')",
	"CREATE VIRTUAL TABLE boxes USING rtree (id, x0, x1, y0, y1)",
	"INSERT INTO boxes VALUES (1, 0, 1, 0, 1), (2, 5, 6, 5, 6)",
}

// mustLayersDB builds the layer-test database in a fresh folder and returns
// its path; the store that built it is closed.
func mustLayersDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "layers.db")
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	require.NoError(t, err)
	defer s.Close()
	for _, q := range layersSchema {
		_, err := s.Write(ctx, domain.WriteRequest{Tier: domain.TierDestructive, SQL: q}, func([]string) {}, func([]any) bool { return true })
		require.NoError(t, err, q)
	}
	require.NoError(t, s.ReplaceView(ctx, domain.View{Name: "tagged", Body: "SELECT tag, count(*) AS n FROM notes GROUP BY tag"}, false, nil))
	return path
}

// mustOpenWith opens path with opts and closes it when the test ends.
func mustOpenWith(t *testing.T, path string, opts sqlite.Options) *sqlite.Store {
	t.Helper()
	if opts.QueryTimeout == 0 {
		opts.QueryTimeout = 5 * time.Second
	}
	s, err := sqlite.Open(context.Background(), path, opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// readRows runs q on the read tier and returns every row.
func readRows(s *sqlite.Store, q string) ([][]any, error) {
	var rows [][]any
	err := s.Read(context.Background(), q, func([]string) {}, func(r []any) bool {
		rows = append(rows, append([]any(nil), r...))
		return true
	})
	return rows, err
}

// contentOf is what the writes below would change: the schema and the rows.
func contentOf(t *testing.T, s *sqlite.Store) [][]any {
	t.Helper()
	rows, err := readRows(s, `SELECT (SELECT group_concat(type || ' ' || name || ' ' || coalesce(sql, ''), char(10)) FROM sqlite_schema),
  (SELECT group_concat(id || body || coalesce(tag, ''), ',') FROM notes),
  (SELECT group_concat(label, ',') FROM links),
  (SELECT count(*) FROM docs), (SELECT count(*) FROM boxes), (SELECT user_version FROM pragma_user_version)`)
	require.NoError(t, err)
	return rows
}

// writeKinds is one statement of every kind that changes a database or
// reaches outside it, each of which compiles on the layer-test database. VACUUM and PRAGMA x = v are
// missing on purpose: the policy refuses them from the statement text before
// anything is compiled (domain.Policy.CheckSQL), so no EXPLAIN layer ever
// sees them; TestControlCasesReachTheProgramCheck guards that split.
var writeKinds = []struct{ name, sql string }{
	{"insert values", "INSERT INTO notes (body) VALUES ('new')"},
	{"insert select", "INSERT INTO notes (body) SELECT body FROM notes"},
	{"insert returning", "INSERT INTO notes (body) VALUES ('new') RETURNING id"},
	{"insert default values", "INSERT INTO links DEFAULT VALUES"},
	{"with insert", "WITH x (b) AS (SELECT 'w') INSERT INTO notes (body) SELECT b FROM x"},
	{"replace", "REPLACE INTO notes (id, body) VALUES (1, 'replaced')"},
	{"insert or ignore", "INSERT OR IGNORE INTO notes (id, body) VALUES (1, 'ignored')"},
	{"upsert", "INSERT INTO notes (id, body) VALUES (1, 'u') ON CONFLICT (id) DO UPDATE SET body = excluded.body"},
	{"update", "UPDATE notes SET body = 'changed'"},
	{"update firing a trigger", "UPDATE notes SET tag = 'c' WHERE id = 1"},
	{"update from", "UPDATE notes SET body = v.b FROM (SELECT 'from' AS b) AS v"},
	{"with update", "WITH x AS (SELECT 1) UPDATE notes SET tag = NULL"},
	{"update returning", "UPDATE notes SET tag = 'r' RETURNING id"},
	{"delete", "DELETE FROM notes"},
	{"delete where", "DELETE FROM links WHERE note_id = 1"},
	{"delete returning", "DELETE FROM links RETURNING id"},
	{"insert into fts5", "INSERT INTO docs (body) VALUES ('plum')"},
	{"fts5 command", "INSERT INTO docs (docs) VALUES ('optimize')"},
	{"delete from fts5", "DELETE FROM docs WHERE rowid = 1"},
	{"insert into rtree", "INSERT INTO boxes VALUES (3, 1, 2, 1, 2)"},
	{"create table", "CREATE TABLE t2 (a)"},
	{"create table as select", "CREATE TABLE t3 AS SELECT * FROM notes"},
	{"create table if not exists", "CREATE TABLE IF NOT EXISTS t4 (a)"},
	{"create index", "CREATE INDEX notes_body ON notes (body)"},
	{"create unique index", "CREATE UNIQUE INDEX links_label ON links (label)"},
	{"create view", "CREATE VIEW v2 AS SELECT 1"},
	{"create trigger", "CREATE TRIGGER t_ai AFTER INSERT ON notes BEGIN SELECT 1; END"},
	{"create virtual table", "CREATE VIRTUAL TABLE docs2 USING fts5 (x)"},
	{"create temp table", "CREATE TEMP TABLE scratch (a)"},
	{"create temp view", "CREATE TEMP VIEW tv AS SELECT 1"},
	{"drop table", "DROP TABLE links"},
	{"drop index", "DROP INDEX notes_tag"},
	{"drop view", "DROP VIEW tagged"},
	{"drop trigger", "DROP TRIGGER notes_touch"},
	{"drop virtual table", "DROP TABLE docs"},
	{"alter rename table", "ALTER TABLE links RENAME TO links2"},
	{"alter rename column", "ALTER TABLE links RENAME COLUMN label TO name"},
	{"alter add column", "ALTER TABLE links ADD COLUMN extra INT"},
	{"alter drop column", "ALTER TABLE links DROP COLUMN label"},
	{"reindex", "REINDEX"},
	{"analyze", "ANALYZE"},
	{"begin", "BEGIN"},
	{"begin immediate", "BEGIN IMMEDIATE"},
	{"commit", "COMMIT"},
	{"rollback", "ROLLBACK"},
	{"savepoint", "SAVEPOINT sp"},
	{"release", "RELEASE sp"},
	{"pragma incremental_vacuum", "PRAGMA incremental_vacuum"},
	{"pragma wal_checkpoint", "PRAGMA wal_checkpoint"},
	{"attach", "ATTACH ':memory:' AS m"},
	{"detach", "DETACH m"},
	{"load_extension", "SELECT load_extension('x')"},
}

func TestProgramCheckAloneRefusesEveryWriteKind(t *testing.T) {
	path := mustLayersDB(t)
	for _, c := range writeKinds {
		t.Run(c.name, func(t *testing.T) {
			s := mustOpenWith(t, path, sqlite.WithoutAuthorizer(sqlite.Options{}))
			before := contentOf(t, s)
			_, err := readRows(s, c.sql)
			assert.ErrorIs(t, err, domain.ErrPolicy)
			assert.Equal(t, before, contentOf(t, s), "nothing changed")
			_, err = s.Compile(context.Background(), domain.TierRead, c.sql)
			assert.Error(t, err, "Compile applies the same check")
		})
	}
}

// TestControlCasesReachTheProgramCheck is the control for the test above:
// with both layers off, none of those statements is refused by policy (they
// fail, if at all, on query_only or on SQLite's own rules), so the refusals
// above come from the EXPLAIN layer and nothing else.
func TestControlCasesReachTheProgramCheck(t *testing.T) {
	path := mustLayersDB(t)
	for _, c := range writeKinds {
		t.Run(c.name, func(t *testing.T) {
			s := mustOpenWith(t, path, sqlite.WithoutAuthorizer(sqlite.WithoutProgramCheck(sqlite.Options{})))
			_, err := readRows(s, c.sql)
			assert.NotErrorIs(t, err, domain.ErrPolicy)
		})
	}
	t.Run("statement-text checks stay in the first layer", func(t *testing.T) {
		s := mustOpenWith(t, path, sqlite.WithoutAuthorizer(sqlite.WithoutProgramCheck(sqlite.Options{})))
		for _, q := range []string{"VACUUM", "PRAGMA user_version = 7", "PRAGMA journal_mode (DELETE)"} {
			_, err := readRows(s, q)
			assert.ErrorIs(t, err, domain.ErrPolicy, q)
		}
	})
}

func TestQueryOnlyHoldsWithBothLayersOff(t *testing.T) {
	path := mustLayersDB(t)
	s := mustOpenWith(t, path, sqlite.WithoutAuthorizer(sqlite.WithoutProgramCheck(sqlite.Options{})))
	before := contentOf(t, s)
	for _, q := range []string{"INSERT INTO notes (body) VALUES ('x')", "DELETE FROM links", "CREATE TABLE t (a)", "DROP TABLE links"} {
		_, err := readRows(s, q)
		assert.ErrorIs(t, err, domain.ErrSQLite, q)
	}
	assert.Equal(t, before, contentOf(t, s))
}

// legitimateReads must pass both layers, in both modes, and return rows.
var legitimateReads = []struct{ name, sql string }{
	{"fts5 match", "SELECT rowid FROM docs WHERE docs MATCH 'apple' ORDER BY rowid"},
	{"fts5 match with bm25 and highlight", "SELECT highlight(docs, 0, '[', ']'), bm25(docs) FROM docs WHERE docs MATCH 'banana' ORDER BY rank"},
	{"fts5 snippet", "SELECT snippet(docs, 0, '<', '>', '...', 3) FROM docs('apple')"},
	{"fts5 table-valued", "SELECT count(*) FROM docs('apple OR banana')"},
	{"fts5 prefix and phrase", `SELECT rowid FROM docs WHERE docs MATCH '(app* AND ban*) OR "apple pie"'`},
	{"json extract and arrow", `SELECT json_extract('{"a":[1,2]}', '$.a[1]'), '{"b":{"c":3}}' ->> '$.b.c'`},
	{"json_each", "SELECT key, value FROM json_each('[10, 20, 30]')"},
	{"json_tree", `SELECT count(*) FROM json_tree('{"a":{"b":[1,2,{"c":3}]}}')`},
	{"json aggregates", "SELECT json_group_array(body), json_group_object(id, tag) FROM notes"},
	{"jsonb round trip", `SELECT json(jsonb('{"x":1}'))`},
	{"recursive cte", "WITH RECURSIVE c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT sum(x) FROM c"},
	{"recursive cte over a table", "WITH RECURSIVE chain (id, depth) AS (SELECT id, 0 FROM notes WHERE id = 1 UNION SELECT n.id, depth + 1 FROM notes n JOIN chain ON n.id = chain.id + 1) SELECT max(depth) FROM chain"},
	{"materialized cte", "WITH m AS MATERIALIZED (SELECT tag FROM notes) SELECT count(*) FROM m a, m b"},
	{"window functions", "SELECT id, row_number() OVER w, sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), lag(body) OVER w FROM notes WINDOW w AS (PARTITION BY tag ORDER BY id)"},
	{"rank and ntile", "SELECT body, rank() OVER (ORDER BY tag), ntile(2) OVER (ORDER BY id), percent_rank() OVER (ORDER BY id) FROM notes"},
	{"pragma table_info", "PRAGMA table_info(notes)"},
	{"pragma table_info function", "SELECT name, type FROM pragma_table_info('notes')"},
	{"pragma table_xinfo", "PRAGMA table_xinfo('notes')"},
	{"pragma index_list and index_info", "SELECT * FROM pragma_index_list('notes') l, pragma_index_info(l.name)"},
	{"pragma foreign_key_list", "PRAGMA foreign_key_list(links)"},
	{"pragma foreign_key_check", "SELECT count(*) FROM pragma_foreign_key_check"},
	{"pragma table_list", "PRAGMA table_list"},
	{"pragma integrity_check", "PRAGMA integrity_check"},
	{"pragma quick_check", "PRAGMA quick_check"},
	{"pragma journal_mode read", "PRAGMA journal_mode"},
	{"pragma user_version read", "PRAGMA user_version"},
	{"pragma schema_version and page_count", "SELECT * FROM pragma_schema_version, pragma_page_count"},
	{"pragma data_version", "PRAGMA data_version"},
	{"pragma compile_options", "PRAGMA compile_options"},
	{"pragma function_list", "SELECT count(*) FROM pragma_function_list"},
	{"explain query plan", "EXPLAIN QUERY PLAN SELECT * FROM notes JOIN links ON links.note_id = notes.id WHERE tag = 'a'"},
	{"explain", "EXPLAIN SELECT * FROM notes WHERE id = 1"},
	{"distinct", "SELECT DISTINCT tag FROM notes"},
	{"group by having", "SELECT tag, count(*) FROM notes GROUP BY tag HAVING count(*) > 1"},
	{"order by limit offset", "SELECT body FROM notes ORDER BY body DESC LIMIT 2 OFFSET 1"},
	{"compound selects", "SELECT tag FROM notes UNION SELECT label FROM links EXCEPT SELECT 'z' INTERSECT SELECT 'a'"},
	{"in subquery and exists", "SELECT body FROM notes WHERE id IN (SELECT note_id FROM links) AND EXISTS (SELECT 1 FROM links WHERE links.note_id = notes.id)"},
	{"long in list", "SELECT count(*) FROM notes WHERE id IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)"},
	{"correlated subquery", "SELECT body, (SELECT count(*) FROM links WHERE note_id = notes.id) FROM notes"},
	{"automatic index join", "SELECT n.body, l.label FROM notes n JOIN links l ON l.label = n.tag OR l.note_id = n.id"},
	{"left join", "SELECT n.id, l.id FROM notes n LEFT JOIN links l ON l.note_id = n.id"},
	{"view", "SELECT * FROM tagged ORDER BY tag"},
	{"schema table", "SELECT type, name FROM sqlite_schema ORDER BY name"},
	{"rtree range query", "SELECT id FROM boxes WHERE x0 >= 4 AND x1 <= 7"},
	{"values", "SELECT * FROM (VALUES (1, 'a'), (2, 'b'))"},
	{"scalar functions", "SELECT printf('%05.1f', 3.14159), substr('hello', 2, 3), date('2025-01-31', '+1 month'), iif(1, 'y', 'n'), hex(randomblob(4)) IS NOT NULL"},
	{"string_agg ordered", "SELECT string_agg(body, '; ' ORDER BY body DESC) FROM notes"},
	{"not indexed", "SELECT count(*) FROM notes NOT INDEXED WHERE tag = 'a'"},
	{"select without from", "SELECT 1"},
}

func TestLegitimateReadsPassBothLayersInBothModes(t *testing.T) {
	path := mustLayersDB(t)
	modes := []struct {
		name string
		opts sqlite.Options
	}{
		{"read-write mode", sqlite.Options{}},
		{"read-only mode", sqlite.Options{ReadOnly: true}},
		{"program check alone", sqlite.WithoutAuthorizer(sqlite.Options{ReadOnly: true})},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := mustOpenWith(t, path, m.opts)
			for _, c := range legitimateReads {
				rows, err := readRows(s, c.sql)
				if assert.NoError(t, err, c.name) {
					assert.NotEmpty(t, rows, c.name)
				}
				_, err = s.Compile(context.Background(), domain.TierRead, c.sql)
				assert.NoError(t, err, "Compile: %s", c.name)
			}
		})
	}
}

func TestLegitimateReadsReturnTheRightAnswers(t *testing.T) {
	s := mustOpenWith(t, mustLayersDB(t), sqlite.Options{ReadOnly: true})
	cases := []struct {
		name, sql string
		want      [][]any
	}{
		{"fts5 match", "SELECT rowid FROM docs WHERE docs MATCH 'apple' ORDER BY rowid", [][]any{{int64(1)}, {int64(3)}}},
		{"json arrow", `SELECT '{"b":{"c":3}}' ->> '$.b.c'`, [][]any{{int64(3)}}},
		{"recursive cte", "WITH RECURSIVE c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT sum(x) FROM c", [][]any{{int64(5050)}}},
		{"window", "SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM notes", [][]any{{int64(1), int64(1)}, {int64(2), int64(3)}, {int64(3), int64(5)}}},
		{"view", "SELECT * FROM tagged ORDER BY tag", [][]any{{"a", int64(2)}, {"b", int64(1)}}},
	}
	for _, c := range cases {
		rows, err := readRows(s, c.sql)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, rows, c.name)
	}
}
