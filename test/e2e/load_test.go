package e2e_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadDuration bounds how long the load clients run.
const loadDuration = 8 * time.Second

// explainedErrors are tool errors a load client may see and why they are
// acceptable. It is empty: under this load every call must succeed (no client
// ever sees "database is locked": docs/decisions.md#concurrency).
var explainedErrors = map[string]string{}

var (
	insertAck = regexp.MustCompile(`^ok: 1 rows affected \(last_insert_rowid=\d+\)$`)
	updateAck = regexp.MustCompile(`^ok: 1 rows affected$`)
)

// loadClient is what one client did and saw.
type loadClient struct {
	id     int
	ops    map[string]int
	rows   map[int]string // seq -> the value last acknowledged for it
	events []ackedEvent   // in the order the client appended them
	errs   []string       // unexplained failures
}

type ackedEvent struct {
	id      int
	content string
}

func (c *loadClient) fail(op, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for prefix := range explainedErrors {
		if strings.HasPrefix(msg, prefix) {
			return
		}
	}
	c.errs = append(c.errs, fmt.Sprintf("client %d %s: %s", c.id, op, msg))
}

// do runs one call and reports its text if it succeeded.
func (c *loadClient) do(cs *mcp.ClientSession, op, tool string, args map[string]any) (string, bool) {
	c.ops[op]++
	out, isErr, err := call(cs, tool, args)
	switch {
	case err != nil:
		c.fail(op, "protocol error: %v", err)
		return "", false
	case isErr:
		c.fail(op, "%s", out)
		return "", false
	}
	return out, true
}

// run mixes the tools until stop, one call at a time, as an agent does.
func (c *loadClient) run(cs *mcp.ClientSession, stop time.Time) {
	for n := 0; time.Now().Before(stop); n++ {
		switch n % 10 {
		case 0, 3, 6:
			seq := len(c.rows)
			val := fmt.Sprintf("c%d-s%d-v0", c.id, seq)
			out, ok := c.do(cs, "insert", "write_query", map[string]any{
				"query": fmt.Sprintf("INSERT INTO items (client, seq, val) VALUES (%d, %d, '%s')", c.id, seq, val)})
			if ok && !insertAck.MatchString(out) {
				c.fail("insert", "unexpected answer %q", out)
			} else if ok {
				c.rows[seq] = val
			}
		case 1, 5:
			content := fmt.Sprintf("client %d event %d", c.id, len(c.events))
			out, ok := c.do(cs, "append", "append_event", map[string]any{"content": content, "kind": "load"})
			if m := eventAck.FindStringSubmatch(out); ok && m == nil {
				c.fail("append", "unexpected answer %q", out)
			} else if ok {
				id, _ := strconv.Atoi(m[1])
				c.events = append(c.events, ackedEvent{id: id, content: content})
			}
		case 2:
			if len(c.rows) == 0 {
				continue
			}
			seq := n % len(c.rows)
			val := fmt.Sprintf("c%d-s%d-v%d", c.id, seq, n)
			out, ok := c.do(cs, "update", "write_query", map[string]any{
				"query": fmt.Sprintf("UPDATE items SET val = '%s', updates = updates + 1 WHERE client = %d AND seq = %d", val, c.id, seq)})
			if ok && !updateAck.MatchString(out) {
				c.fail("update", "unexpected answer %q", out)
			} else if ok {
				c.rows[seq] = val
			}
		case 4:
			// A client's own acknowledged writes are visible to its next read.
			out, ok := c.do(cs, "read", "read_query", map[string]any{
				"query": fmt.Sprintf("SELECT count(*) AS n FROM items WHERE client = %d", c.id)})
			if want := fmt.Sprintf("n\n%d\n# 1 rows", len(c.rows)); ok && out != want {
				c.fail("read", "got %q, want %q", out, want)
			}
		case 7:
			out, ok := c.do(cs, "search", "search_text", map[string]any{
				"table": "items", "pattern": fmt.Sprintf("^c%d-", c.id), "where": fmt.Sprintf("client = %d", c.id), "columns": []string{"val"}})
			if want := fmt.Sprintf(" matching values in %d rows", len(c.rows)); ok && !strings.Contains(out, want) {
				c.fail("search", "%q does not contain %q", out, want)
			}
		case 8:
			c.do(cs, "list", "list_tables", nil)
		case 9:
			if n%30 != 9 {
				continue
			}
			out, ok := c.do(cs, "checkpoint", "checkpoint", map[string]any{"summary": fmt.Sprintf("client %d at op %d", c.id, n)})
			if ok && !checkpointAck.MatchString(out) {
				c.fail("checkpoint", "unexpected answer %q", out)
			}
		}
	}
}

// TestLoadEightProcesses is the load test of docs/decisions.md#concurrency: eight server processes on
// one file, each with its own client, mix reads, writes, updates, appends,
// checkpoints and searches for a bounded time. Afterwards nothing
// acknowledged is lost, the chain is linear, each client's events are in
// its order, the file is sound, and no client saw an unexplained error.
func TestLoadEightProcesses(t *testing.T) {
	t.Parallel()
	const procs = 8
	db := newDB(t)
	sessions := startMany(t, procs, db)
	mustCall(t, sessions[0], "write_query", map[string]any{"query": "CREATE TABLE items (client INTEGER NOT NULL, seq INTEGER NOT NULL, " +
		"val TEXT NOT NULL, updates INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (client, seq))"})

	clients := make([]*loadClient, procs)
	var wg sync.WaitGroup
	began := time.Now()
	stop := began.Add(loadDuration)
	for i, cs := range sessions {
		clients[i] = &loadClient{id: i, ops: map[string]int{}, rows: map[int]string{}}
		wg.Go(func() { clients[i].run(cs, stop) })
	}
	wg.Wait()
	took := time.Since(began)
	for _, cs := range sessions {
		require.NoError(t, cs.Close())
	}

	total, errs := 0, 0
	for _, c := range clients {
		n := 0
		for _, k := range c.ops {
			n += k
		}
		total += n
		errs += len(c.errs)
		t.Logf("client %d: %d calls %v, %d errors", c.id, n, c.ops, len(c.errs))
		assert.Empty(t, c.errs, "client %d saw unexplained errors", c.id)
	}
	t.Logf("%d calls from %d processes in %v: %.0f calls/s, %d errors", total, procs, took.Round(time.Millisecond), float64(total)/took.Seconds(), errs)

	assert.Equal(t, "ok", integrityCheck(t, db))
	fresh := start(t, db).Session
	assertItems(t, fresh, clients)
	assertEvents(t, fresh, clients)
}

// assertItems checks every acknowledged insert and update against the file.
func assertItems(t *testing.T, cs *mcp.ClientSession, clients []*loadClient) {
	t.Helper()
	stored := map[string]string{}
	for _, r := range allRows(t, cs, "SELECT client, seq, val FROM items ORDER BY client, seq") {
		stored[r[0]+"/"+r[1]] = r[2]
	}
	want := map[string]string{}
	for _, c := range clients {
		for seq, val := range c.rows {
			want[fmt.Sprintf("%d/%d", c.id, seq)] = val
		}
	}
	assert.Equal(t, want, stored, "every acknowledged insert is stored with its last acknowledged value")
}

// assertEvents checks that the chain is linear and holds every acknowledged
// event under its id, each client's in that client's order.
func assertEvents(t *testing.T, cs *mcp.ClientSession, clients []*loadClient) {
	t.Helper()
	rows := allRows(t, cs, "SELECT id, content, prev_hash, hash FROM memory_events ORDER BY id")
	ids := make([]int, len(rows))
	contents := map[int]string{}
	for i, r := range rows {
		id, err := strconv.Atoi(r[0])
		require.NoError(t, err)
		ids[i], contents[id] = id, r[1]
		if i > 0 {
			assert.Equal(t, rows[i-1][3], r[2], "event %d's prev_hash is event %d's hash", id, ids[i-1])
		}
	}
	assertContiguous(t, ids)
	// Each checkpoint's seal is an event of its own, written by the server.
	seals := integritySeals(contents)
	for id, c := range contents {
		if integritySeal.MatchString(c) {
			delete(contents, id)
		}
	}
	acked := map[int]string{}
	for _, c := range clients {
		last := 0
		for _, e := range c.events {
			acked[e.id] = e.content
			assert.Greater(t, e.id, last, "client %d's events are stored in the order it appended them", c.id)
			last = e.id
		}
	}
	assert.Equal(t, acked, contents, "the chain holds exactly the acknowledged events")
	assert.Equal(t, chainState{OK: true, Events: len(acked) + seals, HeadID: len(acked) + seals}, verifyChain(t, cs))
}

// allRows reads every row of query, page by page.
func allRows(t *testing.T, cs *mcp.ClientSession, query string) [][]string {
	t.Helper()
	var all [][]string
	for {
		out := mustCall(t, cs, "read_query", map[string]any{"query": query, "limit": 1000, "offset": len(all)})
		rows := csvRows(t, out)
		all = append(all, rows...)
		if len(rows) == 0 || !strings.Contains(out, "truncated") {
			return all
		}
	}
}
