package e2e_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// integrityServerMade returns a database the server has made and closed.
func integrityServerMade(t *testing.T) string {
	t.Helper()
	db := newDB(t)
	p := start(t, db)
	mustCall(t, p.Session, "append_event", map[string]any{"content": "first"})
	require.NoError(t, p.Session.Close())
	return db
}

// integrityTamper runs statements on the file directly, as another program
// with write access would.
func integrityTamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	for _, q := range stmts {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

func integritySchemaSQL(t *testing.T, path, name string) string {
	t.Helper()
	var s sql.NullString
	err := openRO(t, path).QueryRow("SELECT sql FROM sqlite_schema WHERE name = ?", name).Scan(&s)
	if err == sql.ErrNoRows {
		return ""
	}
	require.NoError(t, err)
	return s.String
}

// TestIntegrityLookAlikeServerObjectsAreRefused is
// docs/decisions.md#server-objects-at-startup: a file
// whose server objects are look-alikes, or whose server tables carry extra
// triggers or indexes, is refused at startup with one line naming the
// object and the way out; --repair-server-objects rewrites triggers,
// indexes and views, never a table; files of the reference implementation
// and of earlier versions start as before.
func TestIntegrityLookAlikeServerObjectsAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, object string
		tamper       []string
		check        func(t *testing.T, db string)
	}{
		{
			name:   "a guard that does nothing",
			object: "memory_events_no_update",
			tamper: []string{
				"DROP TRIGGER memory_events_no_update",
				"CREATE TRIGGER memory_events_no_update BEFORE UPDATE ON memory_events BEGIN SELECT 1; END",
			},
			check: func(t *testing.T, db string) {
				conn, err := sql.Open("sqlite", "file:"+db)
				require.NoError(t, err)
				defer conn.Close()
				_, err = conn.Exec("UPDATE memory_events SET content = 'forged'")
				require.Error(t, err, "the append-only guard is back")
				assert.Contains(t, err.Error(), "append-only")
			},
		},
		{
			name:   "an extra trigger that drops every audit row",
			object: "eat_audit",
			tamper: []string{"CREATE TRIGGER eat_audit BEFORE INSERT ON query_log BEGIN SELECT RAISE(IGNORE); END"},
		},
		{
			name:   "an extra trigger that forges memory",
			object: "forge",
			tamper: []string{"CREATE TRIGGER forge AFTER INSERT ON Memory_Events BEGIN INSERT INTO query_log (ts, session, tool, ok, duration_ms) VALUES ('t', 's', 'x', 1, 0); END"},
		},
		{
			name:   "an extra index on a server table",
			object: "query_log_tool",
			tamper: []string{"CREATE INDEX query_log_tool ON query_log(tool)"},
		},
		{
			name:   "a look-alike view",
			object: "query_errors",
			tamper: []string{"DROP VIEW query_errors", "CREATE VIEW query_errors AS SELECT id, ts, tool, query, error FROM query_log WHERE 0"},
		},
		{
			name:   "a look-alike index",
			object: "query_log_ts",
			tamper: []string{"DROP INDEX query_log_ts", "CREATE INDEX query_log_ts ON query_log(ts) WHERE ok = 1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := integrityServerMade(t)
			integrityTamper(t, db, tc.tamper...)
			got := runBinary(t, nil, "--db", db)
			assert.Equal(t, 1, got.code)
			assert.Empty(t, got.stdout)
			assertOneLine(t, got.stderr, tc.object, "--repair-server-objects")

			p := start(t, db, "--repair-server-objects")
			out := mustCall(t, p.Session, "verify_chain", nil)
			assert.Contains(t, out, `"ok": true`, "the memory survived the repair")
			mustCall(t, p.Session, "append_event", map[string]any{"content": "after the repair"})
			require.NoError(t, p.Session.Close())
			assert.Contains(t, p.Stderr.String(), "repaired")
			if tc.object != "query_errors" && tc.object != "query_log_ts" && tc.object != "memory_events_no_update" {
				assert.Empty(t, integritySchemaSQL(t, db, tc.object), "the extra object was dropped")
			}
			var audit int
			require.NoError(t, openRO(t, db).QueryRow("SELECT count(*) FROM query_log WHERE tool = 'append_event'").Scan(&audit))
			assert.Equal(t, 2, audit, "audit rows are written again")
			if tc.check != nil {
				tc.check(t, db)
			}
			// The repaired file starts without the flag.
			mustCall(t, start(t, db).Session, "verify_chain", nil)
		})
	}
}

// TestIntegrityServerTableOfAnotherShapeIsNeverRepaired: a table named like
// a server table but shaped otherwise holds someone's data; the server
// refuses it, with or without the repair flag, and leaves it alone.
func TestIntegrityServerTableOfAnotherShapeIsNeverRepaired(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	integrityTamper(t, db,
		"CREATE TABLE query_log (id INTEGER PRIMARY KEY, message TEXT)",
		"INSERT INTO query_log (message) VALUES ('my own log')")
	for _, args := range [][]string{{"--db", db}, {"--db", db, "--repair-server-objects"}} {
		got := runBinary(t, nil, args...)
		assert.Equal(t, 1, got.code, args)
		assertOneLine(t, got.stderr, "query_log", "another --db")
	}
	var msg string
	require.NoError(t, openRO(t, db).QueryRow("SELECT message FROM query_log").Scan(&msg))
	assert.Equal(t, "my own log", msg)
	assert.Empty(t, integritySchemaSQL(t, db, "memory_events"), "nothing was created in the refused file")
}

// TestIntegrityOwnObjectsNextToServerObjectsStart: the user's own tables,
// triggers, indexes and views, even ones that read the server tables, are
// not the server's business.
func TestIntegrityOwnObjectsNextToServerObjectsStart(t *testing.T) {
	t.Parallel()
	db := integrityServerMade(t)
	integrityTamper(t, db,
		"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
		"CREATE INDEX notes_body ON notes(body)",
		"CREATE TRIGGER notes_log AFTER INSERT ON notes BEGIN SELECT 1; END",
		"CREATE VIEW recent_calls AS SELECT * FROM query_log ORDER BY id DESC")
	p := start(t, db)
	out := mustCall(t, p.Session, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM recent_calls"})
	assert.True(t, strings.HasPrefix(out, "n\n"), out)
}
