package e2e_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// lockFile takes path's write lock as another program would (BEGIN
// IMMEDIATE, nothing written) until the returned release is called.
func lockFile(t *testing.T, path string) (release func()) {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	conn, err := d.Conn(context.Background())
	require.NoError(t, err)
	_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	require.NoError(t, err)
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, err := conn.ExecContext(context.Background(), "ROLLBACK")
			assert.NoError(t, err)
			assert.NoError(t, conn.Close())
		})
	}
	t.Cleanup(release)
	return release
}

// lateRow is a query_log row as the late-row test reads it.
type lateRow struct {
	OK     bool
	Error  string
	Detail map[string]any
}

// lateRows reads the query_log rows of tool with query q from the audit
// file at path.
func lateRows(t *testing.T, path, tool, q string) []lateRow {
	t.Helper()
	rows, err := openRO(t, path).Query("SELECT ok, coalesce(error, ''), coalesce(detail, '{}') FROM query_log WHERE tool = ? AND query = ? ORDER BY id", tool, q)
	require.NoError(t, err)
	defer rows.Close()
	var out []lateRow
	for rows.Next() {
		var r lateRow
		var detail string
		require.NoError(t, rows.Scan(&r.OK, &r.Error, &detail))
		require.NoError(t, json.Unmarshal([]byte(detail), &r.Detail), "detail is JSON: %s", detail)
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestFaultFailedCallsLeaveLateRows covers every way a call's audit row
// can miss its deadline: another program holds the write lock past the
// busy timeout, or past the call's own deadline, on the database itself or
// on read-only mode's --audit-db; the call is a read (its data is
// withheld) or a write (it fails, and so does its failure row). Each call
// fails and returns no data, and once the lock is gone its row is in
// query_log, marked late with the reason, whether the server is still
// running (the row is written as soon as the lock frees) or is told to exit
// (Close writes what is owed).
func TestFaultFailedCallsLeaveLateRows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		readOnly bool
		tool     string
		arg      string
		exit     bool // the server exits right after the lock frees
	}{
		{"read, busy timeout first", nil, false, "read_query", "query", false},
		{"write, busy timeout first", nil, false, "write_query", "query", false},
		{"read, deadline during the audit commit", []string{"--query-timeout", "1.5"}, false, "read_query", "query", false},
		{"write, deadline first", []string{"--query-timeout", "1.5"}, false, "write_query", "query", false},
		{"read, rows owed at exit", []string{"--query-timeout", "1.5"}, false, "read_query", "query", true},
		{"read-only, --audit-db locked", []string{"--query-timeout", "1.5"}, true, "read_query", "query", false},
		{"read-only, --audit-db locked at exit", []string{"--query-timeout", "1.5"}, true, "read_query", "query", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newDB(t)
			audit := db
			setup := start(t, db)
			mustCall(t, setup.Session, "write_query", map[string]any{"query": "CREATE TABLE notes (n INTEGER)"})
			mustCall(t, setup.Session, "write_query", map[string]any{"query": "INSERT INTO notes (n) VALUES (1)"})
			args := tc.args
			if tc.readOnly {
				audit = filepath.Join(filepath.Dir(db), "audit.db")
				args = append(args, "--read-only", "--audit-db", audit)
			}
			require.NoError(t, setup.Session.Close())
			p := start(t, db, args...)
			mustCall(t, p.Session, "list_tables", nil) // the audit file exists and is set up

			q := "INSERT INTO notes (n) VALUES (2)"
			if tc.tool == "read_query" {
				q = "SELECT n * 1000 AS secret FROM notes"
			}
			release := lockFile(t, audit)
			out := mustFail(t, p.Session, tc.tool, map[string]any{tc.arg: q})
			assert.NotContains(t, out, "1000", "no data without its row")
			assert.Contains(t, out, "locked by another program")
			assert.Empty(t, lateRows(t, audit, tc.tool, q), "nothing committed while locked")
			release()

			if tc.exit {
				require.NoError(t, p.Session.Close()) // stdin ends: the server exits
			} else {
				// No call is needed: the row is written once the lock frees.
				for end := time.Now().Add(slack.Of(30 * time.Second)); len(lateRows(t, audit, tc.tool, q)) == 0 && time.Now().Before(end); {
					time.Sleep(50 * time.Millisecond)
				}
			}
			got := lateRows(t, audit, tc.tool, q)
			require.Len(t, got, 1, "the failed call has exactly one row; server stderr:\n%s", p.Stderr)
			assert.False(t, got[0].OK)
			assert.Equal(t, out, got[0].Error, "the row holds the error the agent saw")
			assert.Equal(t, true, got[0].Detail["late"], "marked late: %v", got[0].Detail)
			assert.NotEmpty(t, got[0].Detail["late_reason"], "with the reason: %v", got[0].Detail)
			// The log command shows the mark.
			logArgs := []string{"log", "--db", db, "--failures", "--tool", tc.tool}
			if tc.readOnly {
				logArgs = append(logArgs, "--read-only", "--audit-db", audit)
			}
			lg := runBinary(t, nil, logArgs...)
			require.Equal(t, 0, lg.code, lg.stderr)
			assert.Contains(t, lg.stdout, `"late": true, "late_reason": `)
			if tc.tool == "write_query" {
				var n int
				require.NoError(t, openRO(t, db).QueryRow("SELECT count(*) FROM notes WHERE n = 2").Scan(&n))
				assert.Zero(t, n, "the failed write changed nothing")
			}
		})
	}
}
