package e2e_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// The audit contract (docs/decisions.md#audit-log): a call's answer leaves only after its
// query_log row is committed. A write's row commits in the write's own
// transaction; other rows are group-committed before their answers. A call
// whose row cannot be committed fails and returns no data. Writes of one
// process queue behind each other and are never reported as another
// program's lock.

// auditSecret is a value only the data holds: an answer that contains it
// returned data.
const auditSecret = "audit-secret-7f3a"

// auditSetup makes a table holding the secret and one to write into.
func auditSetup(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE secrets (v TEXT)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO secrets VALUES ('" + auditSecret + "')"})
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE items (n INTEGER)"})
}

// auditRows counts the query_log rows whose query is exactly q, read by
// this test process (not by the server under test).
func auditRows(t *testing.T, db, q string) int {
	t.Helper()
	var n int
	require.NoError(t, openRO(t, db).QueryRow("SELECT count(*) FROM query_log WHERE query = ?", q).Scan(&n))
	return n
}

// auditLockCLI has the sqlite3 shell, another program, take the write lock
// (BEGIN IMMEDIATE with an uncommitted row) and keep it until release.
func auditLockCLI(t *testing.T, db string) (release func()) {
	t.Helper()
	cmd := exec.Command("sqlite3", db)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start(), "the sqlite3 shell must be installed")
	_, err = io.WriteString(stdin, "BEGIN IMMEDIATE;\nINSERT INTO items VALUES (99);\nSELECT 'locked';\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line, "the sqlite3 shell took the write lock")
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, _ = io.WriteString(stdin, "ROLLBACK;\n.quit\n")
			_ = stdin.Close()
			_ = cmd.Wait()
		})
	}
	t.Cleanup(release)
	return release
}

// auditNeverDataWithoutRow checks one answer against the contract: data
// and its row, or a failure and no data.
func auditNeverDataWithoutRow(t *testing.T, db, q, out string, isErr bool) {
	t.Helper()
	if isErr {
		assert.NotContains(t, out, auditSecret, "a failed call returned data")
		return
	}
	assert.Contains(t, out, auditSecret)
	assert.Equal(t, 1, auditRows(t, db, q), "a call returned data without its audit row: %s", q)
}

// TestAuditReadWhileAnotherProgramHoldsTheLock: while the sqlite3 shell
// holds the write lock, a read's row cannot be committed. If the lock ends
// in time the read answers, with its row; if not, it fails with no data and
// says the database is locked by another program.
func TestAuditReadWhileAnotherProgramHoldsTheLock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		hold     time.Duration
		wantData bool
	}{
		{"lock ends before the deadline", 700 * time.Millisecond, true},
		{"lock outlasts the deadline", 6 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newDB(t)
			cs := start(t, db, "--query-timeout", "2").Session
			auditSetup(t, cs)
			release := auditLockCLI(t, db)
			time.AfterFunc(tc.hold, release)
			q := "SELECT v FROM secrets /* " + tc.name + " */"
			began := time.Now()
			out, isErr, err := call(cs, "read_query", map[string]any{"query": q})
			took := time.Since(began)
			require.NoError(t, err)
			auditNeverDataWithoutRow(t, db, q, out, isErr)
			assert.Equal(t, !tc.wantData, isErr, out)
			if isErr {
				assert.Contains(t, out, "audit row could not be written")
				assert.Contains(t, out, "mem.db is locked by another program")
				assert.Less(t, took, slack.Of(2*time.Second+2*time.Second), "the read waits no longer than its deadline (plus a margin)")
			}
			release()
			// Once the lock is gone, reads answer again, each with its row.
			q2 := q + " -- after"
			auditNeverDataWithoutRow(t, db, q2, mustCall(t, cs, "read_query", map[string]any{"query": q2}), false)
		})
	}
}

// auditLongWrite is a write_query that holds this process's write lock for
// a second or more: it counts a long recursive series inside an INSERT.
// The tests that queue behind it run with a 60 s deadline, so that it ends
// long before theirs however loaded the machine is.
const auditLongWrite = "INSERT INTO items WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c"

// auditStartLongWrite runs auditLongWrite in the background and returns once
// it holds the lock; done receives its outcome.
func auditStartLongWrite(t *testing.T, cs *mcp.ClientSession, db string) (done chan string) {
	t.Helper()
	done = make(chan string, 1)
	go func() {
		out, isErr, err := call(cs, "write_query", map[string]any{"query": auditLongWrite})
		done <- fmt.Sprintf("isErr=%v err=%v %s", isErr, err, out)
	}()
	// The lock is taken when another connection can no longer take it.
	probe, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(0)")
	require.NoError(t, err)
	defer probe.Close()
	deadline := time.Now().Add(slack.Of(5 * time.Second))
	for time.Now().Before(deadline) {
		tx, err := probe.BeginTx(context.Background(), nil)
		require.NoError(t, err)
		_, err = tx.Exec("INSERT INTO items VALUES (-1)")
		_ = tx.Rollback()
		if err != nil {
			return done
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.FailNow(t, "the long write never took the lock")
	return done
}

// TestAuditReadWhileThisProcessWrites: reads made while this process's own
// long write holds the lock wait for it, then answer with their rows; none
// is told another program holds the lock.
func TestAuditReadWhileThisProcessWrites(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	cs := start(t, db, "--query-timeout", "60").Session
	auditSetup(t, cs)
	done := auditStartLongWrite(t, cs, db)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			q := fmt.Sprintf("SELECT v FROM secrets /* read %d during the write */", i)
			out, isErr, err := call(cs, "read_query", map[string]any{"query": q})
			assert.NoError(t, err)
			assert.False(t, isErr, "a read waits for this process's write: %s", out)
			assert.NotContains(t, out, "another program")
			auditNeverDataWithoutRow(t, db, q, out, isErr)
		})
	}
	wg.Wait()
	select {
	case out := <-done:
		assert.Contains(t, out, "isErr=false", "the long write itself succeeds")
	case <-time.After(70 * time.Second):
		assert.Fail(t, "the long write never ended")
	}
}

// TestAuditConcurrentReadsEachHaveOneRow: many overlapping reads (their rows
// group-committed) each leave exactly one row.
func TestAuditConcurrentReadsEachHaveOneRow(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	cs := start(t, db).Session
	auditSetup(t, cs)
	const n = 60
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			q := fmt.Sprintf("SELECT v FROM secrets /* concurrent %d */", i)
			out, isErr, err := call(cs, "read_query", map[string]any{"query": q})
			assert.NoError(t, err)
			assert.False(t, isErr, out)
			auditNeverDataWithoutRow(t, db, q, out, isErr)
		})
	}
	wg.Wait()
	var rows int
	require.NoError(t, openRO(t, db).QueryRow("SELECT count(*) FROM query_log WHERE query LIKE 'SELECT v FROM secrets /* concurrent %'").Scan(&rows))
	assert.Equal(t, n, rows)
}

// TestAuditRowSurvivesKillRightAfterTheAnswer: the server is killed the
// moment an answer arrives; the answered call's row is in query_log.
func TestAuditRowSurvivesKillRightAfterTheAnswer(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"read_query", "write_query", "append_event", "list_tables"} {
		t.Run(tool, func(t *testing.T) {
			t.Parallel()
			db := newDB(t)
			p := start(t, db)
			auditSetup(t, p.Session)
			args := map[string]map[string]any{
				"read_query":   {"query": "SELECT v FROM secrets /* killed after */"},
				"write_query":  {"query": "INSERT INTO items VALUES (7) /* killed after */"},
				"append_event": {"content": "killed after"},
				"list_tables":  {},
			}[tool]
			mustCall(t, p.Session, tool, args)
			require.NoError(t, p.Cmd.Process.Kill())
			_ = p.Session.Close() // waits for the process to be gone
			var n int
			require.NoError(t, openRO(t, db).QueryRow("SELECT count(*) FROM query_log WHERE tool = ? AND ok = 1 AND id = (SELECT max(id) FROM query_log)", tool).Scan(&n))
			assert.Equal(t, 1, n, "the last answered call's row is the last row")
		})
	}
}

// TestAuditWriteRowsShareTheWriteTransaction: a reader never sees a
// committed insert without its row or a row without its insert; a write
// that rolls back leaves only its failure row; a write killed mid-way
// leaves neither.
func TestAuditWriteRowsShareTheWriteTransaction(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	p := start(t, db, "--query-timeout", "60")
	cs := p.Session
	auditSetup(t, cs)

	t.Run("reader sees a write and its row together", func(t *testing.T) {
		reader := openRO(t, db)
		stop := make(chan struct{})
		var seen, broken int
		var wg sync.WaitGroup
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var items, logged int
				err := reader.QueryRow(`SELECT (SELECT count(*) FROM items WHERE n >= 1000),
					(SELECT count(*) FROM query_log WHERE tool = 'write_query' AND ok = 1 AND query LIKE 'INSERT INTO items VALUES (1%')`).Scan(&items, &logged)
				if err == nil {
					seen++
					if items != logged {
						broken++
					}
				}
			}
		})
		for i := range 40 {
			mustCall(t, cs, "write_query", map[string]any{"query": fmt.Sprintf("INSERT INTO items VALUES (%d)", 1000+i)})
		}
		close(stop)
		wg.Wait()
		assert.Positive(t, seen)
		assert.Zero(t, broken, "a reader saw an insert without its row, or a row without its insert (%d of %d reads)", broken, seen)
	})

	t.Run("rolled-back write leaves its failure row only", func(t *testing.T) {
		mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE uniq (k INTEGER PRIMARY KEY)"})
		mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO uniq VALUES (5)"})
		q := "INSERT INTO uniq VALUES (1), (2), (5)"
		mustFail(t, cs, "write_query", map[string]any{"query": q})
		var ok, failed, keys int
		r := openRO(t, db)
		require.NoError(t, r.QueryRow("SELECT count(*) FILTER (WHERE ok = 1), count(*) FILTER (WHERE ok = 0) FROM query_log WHERE query = ?", q).Scan(&ok, &failed))
		require.NoError(t, r.QueryRow("SELECT count(*) FROM uniq").Scan(&keys))
		assert.Equal(t, 0, ok)
		assert.Equal(t, 1, failed)
		assert.Equal(t, 1, keys, "the failed statement changed nothing")
	})

	t.Run("killed mid-write leaves neither", func(t *testing.T) {
		before := count(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM items"}))
		auditStartLongWrite(t, cs, db)
		require.NoError(t, p.Cmd.Process.Kill())
		_ = p.Session.Close() // waits for the process to be gone
		var items, rows int
		r := openRO(t, db)
		require.NoError(t, r.QueryRow("SELECT count(*) FROM items").Scan(&items))
		require.NoError(t, r.QueryRow("SELECT count(*) FROM query_log WHERE query = ?", auditLongWrite).Scan(&rows))
		assert.Equal(t, before, items)
		assert.Zero(t, rows)
	})
}

// TestAuditWritesOfOneProcessQueue: writes made while this process's own
// long write holds the lock wait their turn and succeed; none is reported
// as another program's lock, and each has its row.
func TestAuditWritesOfOneProcessQueue(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	cs := start(t, db, "--query-timeout", "60").Session
	auditSetup(t, cs)
	done := auditStartLongWrite(t, cs, db)
	var wg sync.WaitGroup
	const n = 6
	for i := range n {
		wg.Go(func() {
			tool, args := "write_query", map[string]any{"query": fmt.Sprintf("INSERT INTO items VALUES (%d) /* queued */", 500+i)}
			if i%3 == 2 {
				tool, args = "append_event", map[string]any{"content": fmt.Sprintf("queued %d", i)}
			}
			out, isErr, err := call(cs, tool, args)
			assert.NoError(t, err)
			assert.NotContains(t, out, "another program")
			assert.False(t, isErr, "%s waits for this process's write: %s", tool, out)
		})
	}
	wg.Wait()
	assert.Contains(t, <-done, "isErr=false")
	var rows int
	require.NoError(t, openRO(t, db).QueryRow("SELECT count(*) FROM query_log WHERE ok = 1 AND (query LIKE '%/* queued */' OR tool = 'append_event')").Scan(&rows))
	assert.Equal(t, n, rows)
}
