package e2e_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// holdWriteLock opens db as another program would (modernc SQLite, no busy
// wait) and keeps a write transaction with an uncommitted row open until the
// returned release is called (it commits the row when commit is set).
func holdWriteLock(t *testing.T, db string) (release func(commit bool)) {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(0)")
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	conn, err := d.Conn(context.Background())
	require.NoError(t, err)
	_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	require.NoError(t, err)
	_, err = conn.ExecContext(context.Background(), "INSERT INTO notes (n) VALUES (99)")
	require.NoError(t, err)
	var once sync.Once
	release = func(commit bool) {
		once.Do(func() {
			end := "ROLLBACK"
			if commit {
				end = "COMMIT"
			}
			_, err := conn.ExecContext(context.Background(), end)
			assert.NoError(t, err)
			assert.NoError(t, conn.Close())
		})
	}
	t.Cleanup(func() { release(false) })
	return release
}

// lockedCall is one write tool called while another program holds the lock.
type lockedCall struct {
	tool string
	args map[string]any
}

var lockedCalls = []lockedCall{
	{"write_query", map[string]any{"query": "INSERT INTO notes (n) VALUES (4)"}},
	{"append_event", map[string]any{"content": "written while locked"}},
	{"checkpoint", map[string]any{"summary": "written while locked"}},
	{"destructive_query", map[string]any{"query": "DELETE FROM notes WHERE n = 1", "reason": "while locked"}},
}

// TestFaultLockedBeyondBusyTimeout has another program hold the write lock
// longer than the server waits: every write tool answers within its
// deadline with a tool error that says the database is locked by another
// program and to retry, so does a read (its audit row cannot be committed),
// and once the lock is gone the same calls succeed, with no gap in the
// chain. With a query timeout shorter
// than the busy timeout, the timeout fires first and must say the same.
func TestFaultLockedBeyondBusyTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		args       []string
		wait       time.Duration // how long the server waits for the lock
		concurrent bool          // all calls at once (else one after another)
	}{
		{"busy timeout first", nil, 5 * time.Second, true},
		{"query timeout first", []string{"--query-timeout", "1.5"}, 1500 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newDB(t)
			cs := start(t, db, tc.args...).Session
			mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes (n INTEGER)"})
			mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO notes (n) VALUES (1), (2), (3)"})
			mustCall(t, cs, "append_event", map[string]any{"content": "before the lock"})

			release := holdWriteLock(t, db)
			var wg sync.WaitGroup
			for _, c := range lockedCalls {
				try := func() {
					began := time.Now()
					out, isErr, err := call(cs, c.tool, c.args)
					took := time.Since(began)
					require.NoError(t, err)
					assert.True(t, isErr, "%s must fail while locked: %s", c.tool, out)
					assert.Contains(t, out, "mem.db is locked by another program", "%s: %s", c.tool, out)
					assert.Contains(t, out, "waited "+strings.TrimSuffix(tc.wait.String(), "s")+"s, nothing was changed", "%s: %s", c.tool, out)
					assert.Contains(t, out, "Retry", "%s: %s", c.tool, out)
					assert.NotContains(t, out, db, "no absolute path")
					// The wait, plus a short grace for the call's failure row
					// (it needs the lock too; the writes of this process
					// queue, but wait for the other program side by side),
					// plus a margin for a busy machine.
					assert.Less(t, took, slack.Of(tc.wait+time.Second+3*time.Second), "%s answered after %v", c.tool, took)
					t.Logf("%s after %v: %s", c.tool, took.Round(time.Millisecond), out)
				}
				if tc.concurrent {
					wg.Go(try)
				} else {
					try()
				}
			}
			// A read meanwhile cannot commit its audit row either, so it
			// fails the same way and returns no data (never data without
			// its row; test/e2e/audit_contract_test.go has the rest).
			out := mustFail(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM notes"})
			assert.Contains(t, out, "mem.db is locked by another program")
			assert.NotContains(t, out, "count(*)")
			wg.Wait()

			release(true)
			for _, c := range lockedCalls {
				mustCall(t, cs, c.tool, c.args)
			}
			assertChainWithoutGap(t, cs, 4) // the event, the marker, the checkpoint's seal
			assert.Equal(t, "n\n2\n3\n4\n99\n# 4 rows", mustCall(t, cs, "read_query", map[string]any{"query": "SELECT n FROM notes ORDER BY n"}))
		})
	}
}

// assertChainWithoutGap checks that the chain verifies and holds exactly
// events 1..n.
func assertChainWithoutGap(t *testing.T, cs *mcp.ClientSession, n int) {
	t.Helper()
	chain := verifyChain(t, cs)
	assert.True(t, chain.OK, "chain broken at %d: %s", chain.BreakAt, chain.Reason)
	ids, _ := storedEvents(t, cs)
	assertContiguous(t, ids)
	assert.Len(t, ids, n)
}
