package e2e_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// eventAck is append_event's success line; the group is the event id.
var eventAck = regexp.MustCompile(`^ok: event (\d+) appended \(hash [0-9a-f]{12}\.\.\.\)$`)

// startMany starts n server processes on one database file. The first one
// starts alone and creates the file; the others then start at the same time.
func startMany(t *testing.T, n int, db string, args ...string) []*mcp.ClientSession {
	t.Helper()
	first := start(t, db, args...).Session
	return append([]*mcp.ClientSession{first}, startTogether(t, n-1, db, args...)...)
}

// startTogether starts n server processes on one database file at the same
// moment and connects a client to each.
func startTogether(t *testing.T, n int, db string, args ...string) []*mcp.ClientSession {
	t.Helper()
	procs := make([]*e2e.Process, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), slack.Of(20*time.Second))
			defer cancel()
			procs[i], errs[i] = e2e.Connect(ctx, e2e.Command(bin, append([]string{"--db", db}, args...)...))
		})
	}
	wg.Wait()
	sessions := make([]*mcp.ClientSession, n)
	for i, p := range procs {
		if p != nil {
			p.Cleanup(t)
			sessions[i] = p.Session
		}
	}
	for _, err := range errs {
		require.NoError(t, err)
	}
	return sessions
}

// TestFirstStartsRaceOnANewFile starts four processes at once on a file
// that does not exist yet, several times: every one must come up.
func TestFirstStartsRaceOnANewFile(t *testing.T) {
	t.Parallel()
	for round := range 20 {
		db := filepath.Join(t.TempDir(), "mem.db")
		sessions := startTogether(t, 4, db)
		assert.Equal(t, "journal_mode\nwal\n# 1 rows",
			mustCall(t, sessions[round%4], "read_query", map[string]any{"query": "PRAGMA journal_mode"}), "round %d", round)
		for _, cs := range sessions {
			require.NoError(t, cs.Close())
		}
	}
}

// csvRows parses a read_query result (without its trailer) into rows,
// header excluded.
func csvRows(t *testing.T, out string) [][]string {
	t.Helper()
	i := strings.LastIndex(out, "\n# ")
	require.GreaterOrEqual(t, i, 0, "no trailer in %q", out)
	recs, err := csv.NewReader(strings.NewReader(out[:i+1])).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	return recs[1:]
}

// chainState is verify_chain's answer.
type chainState struct {
	OK      bool   `json:"ok"`
	Events  int    `json:"events"`
	HeadID  int    `json:"head_id"`
	BreakAt int    `json:"break_at_id"`
	Reason  string `json:"reason"`
}

func verifyChain(t *testing.T, cs *mcp.ClientSession) chainState {
	t.Helper()
	var c chainState
	require.NoError(t, json.Unmarshal([]byte(mustCall(t, cs, "verify_chain", nil)), &c))
	return c
}

// storedEvents reads every event's id and content, in id order.
func storedEvents(t *testing.T, cs *mcp.ClientSession) (ids []int, contents map[int]string) {
	t.Helper()
	out := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT id, content FROM memory_events ORDER BY id", "limit": 1000})
	require.NotContains(t, out, "truncated", "the test reads every event in one page")
	contents = map[int]string{}
	for _, r := range csvRows(t, out) {
		id, err := strconv.Atoi(r[0])
		require.NoError(t, err)
		ids = append(ids, id)
		contents[id] = r[1]
	}
	return ids, contents
}

// assertContiguous checks that ids are exactly 1..len(ids).
func assertContiguous(t *testing.T, ids []int) {
	t.Helper()
	for i, id := range ids {
		if !assert.Equal(t, i+1, id, "event ids must be 1..N without gaps") {
			return
		}
	}
}

// TestConcurrentAppendsFromFourProcesses pins docs/decisions.md#concurrency: appends from several
// processes at once make one linear chain holding every acknowledged event,
// and no client ever sees "database is locked".
func TestConcurrentAppendsFromFourProcesses(t *testing.T) {
	t.Parallel()
	// One caller per session, as an agent's client makes them: all the
	// contention is between processes, which is what #concurrency is about (concurrent
	// calls on one session are test/contract's business).
	const procs, perProc = 4, 50
	db := newDB(t)
	sessions := startMany(t, procs, db)

	var (
		mu    sync.Mutex
		acked = map[int]string{} // event id -> content
		fails []string
		wg    sync.WaitGroup
	)
	began := time.Now()
	for p, cs := range sessions {
		wg.Go(func() {
			for i := range perProc {
				content := fmt.Sprintf("process %d event %02d", p, i)
				out, isErr, err := call(cs, "append_event", map[string]any{"content": content, "kind": "load"})
				m := eventAck.FindStringSubmatch(out)
				mu.Lock()
				switch {
				case err != nil:
					fails = append(fails, "protocol error: "+err.Error())
				case isErr || m == nil:
					fails = append(fails, out)
				default:
					id, _ := strconv.Atoi(m[1])
					if prev, dup := acked[id]; dup {
						fails = append(fails, fmt.Sprintf("event id %d acknowledged twice (%q and %q)", id, prev, content))
					}
					acked[id] = content
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(began)
	const total = procs * perProc
	t.Logf("%d appends from %d processes in %v (%.0f/s)", total, procs, took.Round(time.Millisecond), float64(total)/took.Seconds())

	assert.Empty(t, fails, "every append succeeds, none sees 'database is locked'")
	assert.Len(t, acked, total)

	assert.Equal(t, chainState{OK: true, Events: total, HeadID: total}, verifyChain(t, sessions[0]))
	ids, stored := storedEvents(t, sessions[3])
	assertContiguous(t, ids)
	assert.Equal(t, acked, stored, "every acknowledged event is stored under the id it was acknowledged with")

	assert.Equal(t, fmt.Sprintf("n\n%d\n# 1 rows", procs),
		mustCall(t, sessions[1], "read_query", map[string]any{"query": "SELECT count(DISTINCT session) AS n FROM memory_events"}))
	// Every answer left after its audit row was committed
	// (docs/decisions.md#audit-log), so every row is there now.
	want := "calls,ok\n" + strings.Repeat("50,50\n", procs) + fmt.Sprintf("# %d rows", procs)
	perSession := mustCall(t, sessions[2], "read_query", map[string]any{
		"query": "SELECT count(*) AS calls, sum(ok) AS ok FROM query_log WHERE tool = 'append_event' GROUP BY session"})
	assert.Equal(t, want, perSession, "each process audits its own 50 successful calls")
}

// TestConcurrentInsertsFromTwoProcesses pins docs/decisions.md#concurrency for write_query: two
// processes inserting at once both succeed and nothing is lost.
func TestConcurrentInsertsFromTwoProcesses(t *testing.T) {
	t.Parallel()
	const perProc = 50
	db := newDB(t)
	sessions := startMany(t, 2, db)
	mustCall(t, sessions[0], "write_query", map[string]any{"query": "CREATE TABLE items (proc INTEGER NOT NULL, n INTEGER NOT NULL, UNIQUE (proc, n))"})

	var (
		mu    sync.Mutex
		fails []string
		wg    sync.WaitGroup
	)
	for p, cs := range sessions {
		wg.Go(func() {
			for n := range perProc {
				out, isErr, err := call(cs, "write_query", map[string]any{"query": fmt.Sprintf("INSERT INTO items (proc, n) VALUES (%d, %d)", p, n)})
				if err != nil || isErr || !strings.HasPrefix(out, "ok: 1 rows affected") {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("process %d insert %d: %v %s", p, n, err, out))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	assert.Empty(t, fails)
	assert.Equal(t, "proc,rows,distinct_n,lo,hi\n0,50,50,0,49\n1,50,50,0,49\n# 2 rows",
		mustCall(t, sessions[1], "read_query", map[string]any{
			"query": "SELECT proc, count(*) AS rows, count(DISTINCT n) AS distinct_n, min(n) AS lo, max(n) AS hi FROM items GROUP BY proc ORDER BY proc"}))
}

// TestLongReadBlocksNoOne pins the WAL promise behind docs/decisions.md#concurrency: while one
// process holds a long read transaction, other processes still read and
// write at once.
func TestLongReadBlocksNoOne(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	setup := start(t, db).Session
	mustCall(t, setup, "write_query", map[string]any{"query": "CREATE TABLE items (n INTEGER)"})
	mustCall(t, setup, "write_query", map[string]any{
		"query": "INSERT INTO items WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) SELECT x FROM c"})

	// The long reader scans a 200^4 cross join until its timeout stops it:
	// 2 s on an idle machine, longer on a busy one, so that it still runs
	// when the other calls are done.
	longTimeout := time.Duration(math.Ceil(slack.Of(2*time.Second).Seconds())) * time.Second
	longProc := start(t, db, "--query-timeout", strconv.Itoa(int(longTimeout.Seconds())))
	long, longPID := longProc.Session, longProc.Cmd.Process.Pid
	readers := startMany(t, 2, db)
	longDone := make(chan bool, 1) // receives whether the long read ended in a tool error
	cpu := signalCPUStart(t, longPID)
	go func() {
		_, isErr, _ := call(long, "read_query", map[string]any{"query": "SELECT count(*) FROM items a, items b, items c, items d"})
		longDone <- isErr
	}()
	signalQueryRunning(t, longPID, cpu, 1500*time.Millisecond) // the long read is stepping, so it holds its snapshot

	cases := []struct {
		name string
		cs   *mcp.ClientSession
		tool string
		args map[string]any
		want string
	}{
		{"read from a second process", readers[0], "read_query", map[string]any{"query": "SELECT count(*) FROM items"}, "count(*)\n200\n# 1 rows"},
		{"read from a third process", readers[1], "read_query", map[string]any{"query": "SELECT max(n) FROM items"}, "max(n)\n200\n# 1 rows"},
		{"insert from a second process", readers[0], "write_query", map[string]any{"query": "INSERT INTO items VALUES (201)"}, "ok: 1 rows affected (last_insert_rowid=201)"},
		{"append from a third process", readers[1], "append_event", map[string]any{"content": "written during a long read"}, ""},
		{"read after the write", readers[1], "read_query", map[string]any{"query": "SELECT count(*) FROM items"}, "count(*)\n201\n# 1 rows"},
	}
	// Whether a call waited for the long read is seen, not timed: every
	// call must be answered while the long read still runs.
	for _, tc := range cases {
		out := mustCall(t, tc.cs, tc.tool, tc.args)
		if tc.want != "" {
			assert.Equal(t, tc.want, out, tc.name)
		}
	}
	select {
	case <-longDone:
		assert.Fail(t, "the long read ended before the other calls finished, so they waited for it or did not overlap it")
	default:
	}
	select {
	case isErr := <-longDone:
		assert.True(t, isErr, "the long read is stopped by its timeout")
	case <-time.After(slack.Of(longTimeout + 8*time.Second)):
		assert.Fail(t, "the long read outlived its query timeout", "%v", longTimeout)
	}
}
