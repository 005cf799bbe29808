package e2e_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// The undo tests run a server on the file, make the objects, let the
// server's destructive_query change them, write events and audit rows
// after it, and run the undo command beside the running server. Objects
// are compared by an independent dump of each file (not the adapter's
// digests): every sqlite_schema entry and every row of every table,
// shadow tables and sqlite_sequence included.

// undoSchema is the fixture: foreign keys, an AUTOINCREMENT table with
// gaps in its ids, triggers that write another table (kv_gone would fire
// if undo emptied kv with it in place), a view ("VIEW name body" is a
// create_view call), an index, a generated column, a table whose name
// needs quoting, a WITHOUT ROWID table, a rowid table without an alias
// (its rowids have gaps), an FTS5 table, and later_notes, which only
// later calls write.
var undoSchema = []string{
	"CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT UNIQUE)",
	"CREATE TABLE counted (id INTEGER PRIMARY KEY AUTOINCREMENT)",
	"CREATE TABLE child (id INTEGER PRIMARY KEY AUTOINCREMENT, parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE, note TEXT, n REAL, b BLOB)",
	"CREATE INDEX child_parent ON child(parent_id)",
	"CREATE TABLE kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID",
	"CREATE TABLE plain (a, b, g AS (typeof(a)))",
	`CREATE TABLE "we""ird t" (x UNIQUE)`,
	`INSERT INTO "we""ird t" VALUES ('q'), (NULL), (x'00')`,
	"CREATE TABLE trail (what TEXT)",
	"CREATE TRIGGER kv_gone AFTER DELETE ON kv BEGIN INSERT INTO trail VALUES ('kv ' || old.k); END",
	"CREATE TRIGGER child_gone AFTER DELETE ON child BEGIN INSERT INTO trail VALUES ('deleted ' || old.id); END",
	"VIEW child_names SELECT c.id, p.name FROM child c JOIN parent p ON p.id = c.parent_id",
	"CREATE VIRTUAL TABLE docs USING fts5(body)",
	"CREATE TABLE later_notes (note TEXT)",
	"INSERT INTO parent VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')",
	"INSERT INTO child (id, parent_id, note, n, b) VALUES (2, 1, 'a', 1.5, x'00ff'), (5, 1, '', 2.0, NULL), (9, 2, NULL, -0.1, x''), (10, 3, '10', 1e300, x'31')",
	"INSERT INTO counted DEFAULT VALUES",
	"INSERT INTO kv VALUES ('x', 1), ('y', 'two'), ('z', NULL)",
	"INSERT INTO plain (rowid, a, b) VALUES (1, 1, 'one'), (4, 2.5, x'02'), (7, '3', NULL)",
	"INSERT INTO docs (rowid, body) VALUES (1, 'alpha beta'), (3, 'beta gamma'), (8, 'alpha delta')",
}

// undoKinds are the statements undone, with a query whose answer the
// running server must give again after the undo.
var undoKinds = []struct {
	name, sql, check string
}{
	{"drop table", "DROP TABLE child", "SELECT count(*), sum(id) FROM child"},
	{"drop view", "DROP VIEW child_names", "SELECT count(*) FROM child_names"},
	{"drop index", "DROP INDEX child_parent", "SELECT name FROM sqlite_schema WHERE name = 'child_parent'"},
	{"drop trigger", "DROP TRIGGER child_gone", "SELECT name FROM sqlite_schema WHERE name = 'child_gone'"},
	{"delete through a trigger", "DELETE FROM child", "SELECT (SELECT count(*) FROM child), (SELECT count(*) FROM trail)"},
	{"delete from a table without rowid alias", "DELETE FROM plain WHERE a > 1", "SELECT count(*), sum(rowid) FROM plain"},
	{"unfiltered update", "UPDATE kv SET v = 'gone'", "SELECT count(*) FROM kv WHERE v = 'gone'"},
	{"unfiltered update of a referenced table", "UPDATE parent SET name = upper(name)", "SELECT group_concat(name, '/') FROM parent"},
	{"alter rename", "ALTER TABLE parent RENAME TO parents", "SELECT count(*) FROM parent"},
	{"alter add column", "ALTER TABLE plain ADD COLUMN c DEFAULT 7", "SELECT count(*) FROM pragma_table_info('plain')"},
	{"alter drop column", "ALTER TABLE child DROP COLUMN note", "SELECT count(*) FROM pragma_table_info('child')"},
	{"fts5 delete", "DELETE FROM docs WHERE docs MATCH 'alpha'", "SELECT count(*) FROM docs WHERE docs MATCH 'alpha'"},
	{"drop table with an odd name", `DROP TABLE "we""ird t"`, `SELECT count(*) FROM "we""ird t"`},
	{"create trigger", "CREATE TRIGGER kv_set AFTER UPDATE ON kv BEGIN SELECT 1; END", "SELECT count(*) FROM sqlite_schema WHERE name = 'kv_set'"},
	{"fts5 unfiltered update", "UPDATE docs SET body = 'omega'", "SELECT rowid FROM docs WHERE docs MATCH 'alpha' ORDER BY rowid"},
	{"fts5 drop", "DROP TABLE docs", "SELECT rowid FROM docs WHERE docs MATCH 'beta' ORDER BY rowid"},
}

var undoSnapshotPath = regexp.MustCompile(`snapshot: (\S+)`)

// undoSetup starts a server on a new file, makes the fixture, runs sql
// with destructive_query and returns the server, the file and the
// snapshot's path.
func undoSetup(t *testing.T, sql string) (*mcp.ClientSession, string, string) {
	t.Helper()
	db := newDB(t)
	cs := start(t, db).Session
	for _, q := range undoSchema {
		if name, body, ok := strings.Cut(strings.TrimPrefix(q, "VIEW "), " "); ok && strings.HasPrefix(q, "VIEW ") {
			mustCall(t, cs, "create_view", map[string]any{"name": name, "select_sql": body, "description": "children and their parents"})
			continue
		}
		if strings.HasPrefix(q, "CREATE TRIGGER") {
			mustCall(t, cs, "destructive_query", map[string]any{"query": q, "reason": "the fixture's trigger"})
			continue
		}
		mustCall(t, cs, "write_query", map[string]any{"query": q})
	}
	mustCall(t, cs, "append_event", map[string]any{"content": "before the destructive call"})
	out := mustCall(t, cs, "destructive_query", map[string]any{"query": sql, "reason": "testing undo"})
	m := undoSnapshotPath.FindStringSubmatch(out)
	require.NotNil(t, m, "destructive_query names its snapshot: %s", out)
	return cs, db, m[1]
}

// userDump is every user object of a file: its sqlite_schema entry and,
// for a table (shadow tables included), every row with its rowid, typed;
// and the AUTOINCREMENT counters. Keyed by object name.
func userDump(t *testing.T, path string) map[string]string {
	t.Helper()
	db := openRO(t, path)
	rows, err := db.Query("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY name")
	require.NoError(t, err)
	type entry struct{ typ, name, tbl, sql string }
	var entries []entry
	for rows.Next() {
		var e entry
		require.NoError(t, rows.Scan(&e.typ, &e.name, &e.tbl, &e.sql))
		entries = append(entries, e)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	out := map[string]string{}
	for _, e := range entries {
		// The server's objects (memory, audit, search_memory's index, the
		// approval queue, head signatures) are the server's: undo keeps
		// them as they are, and later appends change them.
		if domain.IsServerObject(e.tbl) || domain.IsServerObject(e.name) {
			continue
		}
		if strings.HasPrefix(e.name, "sqlite_autoindex") {
			continue
		}
		s := e.typ + " " + e.tbl + " " + e.sql + "\n"
		if e.typ == "table" && !strings.HasPrefix(e.sql, "CREATE VIRTUAL") {
			s += dumpRows(t, db, e.name)
		}
		out[e.name] = s
	}
	return out
}

func dumpRows(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	quoted := `"` + strings.ReplaceAll(table, `"`, `""`) + `"`
	rows, err := db.Query(`SELECT rowid, * FROM ` + quoted + ` ORDER BY rowid`)
	if err != nil { // WITHOUT ROWID
		rows, err = db.Query(`SELECT * FROM ` + quoted + ` ORDER BY 1`)
	}
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var b strings.Builder
	for rows.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		require.NoError(t, rows.Scan(p...))
		for _, x := range v {
			fmt.Fprintf(&b, "%T:%v|", x, x)
		}
		b.WriteByte('\n')
	}
	require.NoError(t, rows.Err())
	return b.String()
}

// serverRows are the rows of a server table, each as one string.
func serverRows(t *testing.T, path, table string) []string {
	t.Helper()
	rows, err := openRO(t, path).Query("SELECT * FROM " + table + " ORDER BY id")
	require.NoError(t, err)
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		require.NoError(t, rows.Scan(p...))
		out = append(out, fmt.Sprintf("%v", v))
	}
	return out
}

func TestUndoRestoresEachKindAndKeepsMemoryAndAudit(t *testing.T) {
	t.Parallel()
	for _, kind := range undoKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			cs, db, snap := undoSetup(t, kind.sql)
			want := userDump(t, snap)
			// Later calls: events, and a write to another table.
			mustCall(t, cs, "append_event", map[string]any{"content": "after the destructive call"})
			mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO later_notes VALUES ('kept')"})
			mustCall(t, cs, "checkpoint", map[string]any{"summary": "later work"})
			laterNotes := userDump(t, db)["later_notes"]
			events, audit := serverRows(t, db, "memory_events"), serverRows(t, db, "query_log")

			out := runBinary(t, nil, "undo", "--db", db, "--yes")
			require.Equal(t, 0, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
			assert.Contains(t, out.stdout, "restores ")
			assert.NotContains(t, out.stdout, "later_notes", "later_notes was not the call's")

			got := userDump(t, db)
			want["later_notes"] = laterNotes // the later change is kept
			assert.Equal(t, want, got, "every user object is the snapshot's, byte for byte, but later_notes")

			// Every event and audit row is kept, and one of each added.
			gotEvents, gotAudit := serverRows(t, db, "memory_events"), serverRows(t, db, "query_log")
			require.Len(t, gotEvents, len(events)+1)
			assert.Equal(t, events, gotEvents[:len(events)])
			assert.Contains(t, gotEvents[len(events)], " undo undo of call #")
			require.Len(t, gotAudit, len(audit)+1)
			assert.Equal(t, audit, gotAudit[:len(audit)])
			assert.Contains(t, gotAudit[len(audit)], " undo undo call #")
			v := runBinary(t, nil, "verify", "--db", db)
			assert.Equal(t, 0, v.code, "the chain verifies: %s %s", v.stdout, v.stderr)

			// The running server answers, and sees the restored objects.
			snapDB := openRO(t, snap)
			var wantAnswer []string
			rows, err := snapDB.Query(kind.check)
			require.NoError(t, err)
			cols, _ := rows.Columns()
			for rows.Next() {
				v := make([]any, len(cols))
				p := make([]any, len(cols))
				for i := range v {
					p[i] = &v[i]
				}
				require.NoError(t, rows.Scan(p...))
				var cells []string
				for _, x := range v {
					cells = append(cells, fmt.Sprintf("%v", x))
				}
				wantAnswer = append(wantAnswer, strings.Join(cells, ","))
			}
			rows.Close()
			answer := mustCall(t, cs, "read_query", map[string]any{"query": kind.check})
			lines := strings.Split(strings.TrimSpace(answer), "\n")
			require.GreaterOrEqual(t, len(lines), 2, answer)
			assert.Equal(t, wantAnswer, lines[1:len(lines)-1], "the server's answer after the undo: %s", answer)
		})
	}
}

func TestUndoRefusesToOverwriteLaterChangesUnlessTold(t *testing.T) {
	t.Parallel()
	cs, db, snap := undoSetup(t, "DELETE FROM plain")
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO plain VALUES ('written later', 1)"})
	mustCall(t, cs, "append_event", map[string]any{"content": "after the later write"})
	before := userDump(t, db)
	audit := serverRows(t, db, "query_log")

	out := runBinary(t, nil, "undo", "--db", db, "--yes")
	assert.Equal(t, 1, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	assert.Contains(t, out.stdout, "changed again after the call, and overwritten by the undo:\n  table 'plain'\n")
	assert.Contains(t, out.stdout, "later calls that name them:\n  #")
	assert.Contains(t, out.stdout, "write_query: INSERT INTO plain VALUES ('written later', 1)")
	assert.Contains(t, out.stderr, "--overwrite-later")
	assert.Equal(t, before, userDump(t, db), "nothing was restored")
	assert.Equal(t, audit, serverRows(t, db, "query_log"), "a refused undo writes no audit row")

	out = runBinary(t, nil, "undo", "--db", db, "--yes", "--overwrite-later", "--json")
	require.Equal(t, 0, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	var res struct {
		Later      []string `json:"later"`
		LaterCalls []string `json:"later_calls"`
		Restored   bool     `json:"restored"`
		EventID    int64    `json:"event_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &res), out.stdout)
	assert.Equal(t, []string{"table plain"}, res.Later)
	require.Len(t, res.LaterCalls, 1)
	assert.Contains(t, res.LaterCalls[0], "written later")
	assert.True(t, res.Restored)
	assert.Equal(t, userDump(t, snap)["plain"], userDump(t, db)["plain"], "plain is the snapshot's again")
	gotAudit := serverRows(t, db, "query_log")
	require.Len(t, gotAudit, len(audit)+1)
	assert.Contains(t, gotAudit[len(audit)], `"overwrote_later": ["plain"]`)

	// Undoing the same call again finds nothing left to restore; without
	// CALL, undo moves on to the call before it (the fixture's trigger).
	var doc struct {
		Rows []cliSubLogRow `json:"rows"`
	}
	cliSubJSON(t, 0, &doc, "log", "--db", db, "--tool", "destructive_query", "--limit", "2")
	require.Len(t, doc.Rows, 2)
	out = runBinary(t, nil, "undo", "--db", db, "--yes", strconv.FormatInt(doc.Rows[1].ID, 10))
	assert.Equal(t, 0, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	assert.Contains(t, out.stdout, "nothing to restore")
	out = runBinary(t, nil, "undo", "--db", db)
	assert.Equal(t, 1, out.code, "no terminal, no --yes")
	assert.Contains(t, out.stdout, fmt.Sprintf("undo of call #%d ", doc.Rows[0].ID))
	assert.Contains(t, out.stdout, "trigger 'child_gone': dropped (it did not exist before)")
}

func TestUndoNeedsYesWithoutATerminalAndRefusesWhatItCannotUndo(t *testing.T) {
	t.Parallel()
	cs, db, _ := undoSetup(t, "DELETE FROM kv")
	before := userDump(t, db)
	out := runBinary(t, nil, "undo", "--db", db)
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stdout, "table 'kv': rows put back (0 rows now, 3 before)")
	assert.Contains(t, out.stderr, "--yes")
	assert.Equal(t, before, userDump(t, db))

	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO later_notes VALUES ('x')"})
	var rows []cliSubLogRow
	var doc struct {
		Rows []cliSubLogRow `json:"rows"`
	}
	cliSubJSON(t, 0, &doc, "log", "--db", db, "--limit", "1")
	rows = doc.Rows
	require.Len(t, rows, 1)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{strconv.FormatInt(rows[0].ID, 10)}, 1, "only destructive_query calls"},
		{[]string{"999999"}, 1, "no call #999999"},
		{[]string{"abc"}, 2, "CALL must be a query_log id"},
		{[]string{"--read-only"}, 2, "--read-only"},
	} {
		out := runBinary(t, nil, append([]string{"undo", "--db", db, "--yes"}, tc.args...)...)
		assert.Equal(t, tc.code, out.code, "%v: %s %s", tc.args, out.stdout, out.stderr)
		assertOneLine(t, out.stderr, tc.says)
	}
}

// TestUndoBesideARunningServerIsNeverSeenHalfDone reads, through the
// running server, two tables the undo restores together, for as long as
// the undo runs: every answer is the state before or after, never a mix.
func TestUndoBesideARunningServerIsNeverSeenHalfDone(t *testing.T) {
	t.Parallel()
	cs, db, _ := undoSetup(t, "DELETE FROM child")
	const q = "SELECT (SELECT count(*) FROM child) || '/' || (SELECT count(*) FROM trail)"
	state := func() string {
		out := mustCall(t, cs, "read_query", map[string]any{"query": q})
		return strings.Split(out, "\n")[1]
	}
	require.Equal(t, "0/4", state(), "the call deleted child's 4 rows; its trigger logged them")
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var stdout, stderr strings.Builder
		cmd := exec.CommandContext(ctx, bin, "undo", "--db", db, "--yes")
		cmd.Env = e2e.Env()
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		done <- outcome{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	}()
	seen := map[string]int{}
	var res outcome
	for running := true; running; {
		select {
		case res = <-done:
			running = false
		default:
		}
		out, isErr, err := call(cs, "read_query", map[string]any{"query": q})
		require.NoError(t, err)
		require.False(t, isErr, "the server keeps answering during the undo: %s", out)
		seen[strings.Split(out, "\n")[1]]++
	}
	require.Equal(t, 0, res.code, "stdout: %s\nstderr: %s", res.stdout, res.stderr)
	assert.Equal(t, "4/0", state(), "after the undo the server sees child's rows back and trail as before the call")
	for s := range seen {
		assert.Contains(t, []string{"0/4", "4/0"}, s, "an answer during the undo: %v", seen)
	}
	mustCall(t, cs, "append_event", map[string]any{"content": "the server writes after the undo"})
	v := runBinary(t, nil, "verify", "--db", db)
	assert.Equal(t, 0, v.code, v.stdout+v.stderr)
}
