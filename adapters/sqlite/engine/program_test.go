package engine

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directSchema has what the statements below touch: tables with an index
// and a trigger, a view, FTS5 and R*Tree tables.
var directSchema = []string{
	"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, tag TEXT)",
	"CREATE INDEX notes_tag ON notes (tag)",
	"CREATE TABLE links (id INTEGER PRIMARY KEY, note_id INTEGER REFERENCES notes (id), label TEXT)",
	"CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN UPDATE links SET label = label WHERE note_id = new.id; END",
	"CREATE VIEW tagged AS SELECT tag, count(*) AS n FROM notes GROUP BY tag",
	"CREATE VIRTUAL TABLE docs USING fts5 (body)",
	"CREATE VIRTUAL TABLE boxes USING rtree (id, x0, x1, y0, y1)",
	"INSERT INTO notes (body, tag) VALUES ('apple', 'a'), ('banana', 'b')",
}

// directStatements are reads and every kind of write the read tier must
// refuse; the authorizer is off here, so each is compiled as it stands.
var directStatements = []string{
	"SELECT 1", "SELECT * FROM notes WHERE id = 1", "SELECT * FROM tagged", "SELECT body FROM docs WHERE docs MATCH 'apple'",
	"SELECT * FROM boxes WHERE x0 > 0", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 9) SELECT * FROM c",
	"SELECT DISTINCT tag FROM notes ORDER BY tag", "SELECT json_extract('{\"a\":1}', '$.a')", "SELECT sqlite_compileoption_used('THREADSAFE')",
	"SELECT upper(body), length(body), substr(body, 2) FROM notes", "SELECT count(*) FROM notes n JOIN links l ON l.note_id = n.id",
	"SELECT * FROM pragma_table_info('notes')", "PRAGMA table_info(notes)", "PRAGMA journal_mode", "EXPLAIN SELECT 1",
	"INSERT INTO notes (body) VALUES ('x')", "INSERT INTO notes (body) VALUES ('x') RETURNING id", "UPDATE notes SET tag = 'c'",
	"DELETE FROM notes WHERE id = 9", "DELETE FROM links", "INSERT INTO docs (body) VALUES ('x')", "INSERT INTO boxes VALUES (3, 0, 1, 0, 1)",
	"CREATE TABLE t2 (x)", "DROP TABLE links", "DROP INDEX notes_tag", "DROP TRIGGER notes_touch", "DROP VIEW tagged",
	"CREATE INDEX i2 ON notes (body)", "ALTER TABLE notes ADD COLUMN extra TEXT", "ATTACH ':memory:' AS other", "DETACH other",
	"VACUUM", "PRAGMA incremental_vacuum", "PRAGMA journal_mode = DELETE", "PRAGMA user_version = 3", "PRAGMA wal_checkpoint",
	"ANALYZE", "REINDEX notes", "BEGIN", "COMMIT", "SAVEPOINT s", "RELEASE s", "SELECT load_extension('nothing')",
	"REPLACE INTO notes (id, body) VALUES (1, 'y')", "INSERT INTO notes (body) SELECT body FROM notes",
}

// TestFirstWriteDirectMatchesTheListing: for every statement, reading the
// program in SQLite's memory names the same first write as the EXPLAIN
// listing, or leaves the statement to the listing.
func TestFirstWriteDirectMatchesTheListing(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "direct.db"))
	require.NoError(t, err)
	defer db.Close()
	for _, q := range directSchema {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	direct, writes := 0, 0
	require.NoError(t, conn.Raw(func(dc any) error {
		h, err := Open(dc)
		require.NoError(t, err)
		for _, q := range directStatements {
			st, _, err := h.Prepare(q)
			if !assert.NoError(t, err, q) || st.Empty() {
				continue
			}
			got, ok := firstWriteDirect(st)
			want, err := firstWriteListed(st)
			require.NoError(t, err, q)
			st.Finalize()
			if ok {
				direct++
				assert.Equal(t, want, got, "first write of %q", q)
			}
			if want != "" {
				writes++
			}
		}
		return nil
	}))
	assert.GreaterOrEqual(t, writes, 25, "the statements cover the writes")
	assert.GreaterOrEqual(t, direct, len(directStatements)-6, "only programs with sub-programs go to the listing")
}
