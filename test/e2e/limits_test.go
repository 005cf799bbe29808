package e2e_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// bombTimeout is the per-call deadline the resource tests run the server
// under, so a bomb that can only be stopped by the clock stops quickly.
const bombTimeout = 2 * time.Second

// answerMargin is how much later than bombTimeout a bomb may answer on an
// idle machine; tests scale the sum with the machine's load (slack.Of).
const answerMargin = 5 * time.Second

// workTimeout is the deadline of a server whose calls are meant to finish:
// their work must never meet the clock, however busy the machine.
const workTimeout = 120 * time.Second

// rssBudgetKB is the peak RSS a bomb may reach, 100 MB (within the 150 MB
// of docs/decisions.md#performance-budgets), in the kB /proc reports.
const rssBudgetKB = 100 * 1024

// valueLimit is the largest string or blob an agent statement may build
// (the server's SQLITE_LIMIT_LENGTH); nearMax is a size just under it.
const (
	valueLimit = 8 << 20
	nearMax    = valueLimit - 1000
)

// Error texts the bombs must end in, by kind.
const (
	timedOut = "query exceeded 2s and was cancelled"
	tooBig   = "string or blob too big"
)

// memoryOf reads the server's resident set now and at its peak.
func memoryOf(t *testing.T, pid int) e2e.Memory {
	t.Helper()
	m, err := e2e.ReadMemory(pid)
	require.NoError(t, err)
	return m
}

// bomb is one call meant to exhaust time or memory.
type bomb struct {
	name string
	tool string
	args map[string]any
	// fails says the call must be a tool error; otherwise it must succeed
	// with a capped result.
	fails bool
	// want must appear in the answer: the error's kind-specific wording, or
	// what shows the result was capped.
	want string
}

// repeat is SQL for a text of n copies of the character c, built by SQLite.
func repeat(n int, c string) string { return fmt.Sprintf("printf('%%.*c', %d, '%s')", n, c) }

// counter is a recursive CTE counting from 1 to n (0: forever).
func counter(n int) string {
	if n == 0 {
		return "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
	}
	return fmt.Sprintf("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < %d) ", n)
}

func readBomb(name, query string, fails bool, want string) bomb {
	return bomb{name: name, tool: "read_query", args: map[string]any{"query": query, "limit": 1000}, fails: fails, want: want}
}

func writeBomb(name, query string, fails bool, want string) bomb {
	return bomb{name: name, tool: "write_query", args: map[string]any{"query": query}, fails: fails, want: want}
}

func resourceBombs() []bomb {
	nested := func(depth int, open, inner, close string) string {
		return strings.Repeat(open, depth) + inner + strings.Repeat(close, depth)
	}
	return []bomb{
		// Values SQLite would build in memory: SQLITE_LIMIT_LENGTH stops them.
		readBomb("zeroblob 1 GB", "SELECT zeroblob(1000000000)", true, tooBig),
		readBomb("randomblob just under the limit", fmt.Sprintf("SELECT randomblob(%d) AS b", nearMax), false, "b\n"),
		readBomb("randomblob just over the limit", fmt.Sprintf("SELECT randomblob(%d)", valueLimit+1), true, tooBig),
		readBomb("printf width 1e9", "SELECT printf('%.*c', 1000000000, 'x')", true, tooBig),
		readBomb("replace over hex of zeroblob", fmt.Sprintf("SELECT replace(hex(zeroblob(%d)), '0', 'xyz')", nearMax/2), true, tooBig),
		readBomb("group_concat over a 100 MB CTE", counter(100000)+"SELECT group_concat("+repeat(1000, "x")+") FROM r", true, tooBig),
		readBomb("group_concat over an endless CTE", counter(0)+"SELECT group_concat("+repeat(1000, "x")+") FROM r", true, timedOut),
		readBomb("string doubling", "WITH RECURSIVE d(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM d) SELECT length(s) FROM d", true, tooBig),
		// A single huge cell is read, and cut to max_cell_chars.
		readBomb("one max-size text cell", "SELECT "+repeat(nearMax, "x")+" AS t", false,
			"t\n"+strings.Repeat("x", 2000)+fmt.Sprintf("...[+%d chars]\n# 1 rows", nearMax-2000)),
		readBomb("one multi-byte text cell", "SELECT replace("+repeat(nearMax/2, "x")+", 'x', 'é') AS t", false,
			"t\n"+strings.Repeat("é", 2000)+fmt.Sprintf("...[+%d chars]\n# 1 rows", nearMax/2-2000)),
		readBomb("one max-size cell per row", counter(1000)+"SELECT x, "+repeat(nearMax, "x")+" AS t FROM r", false, "truncated"),
		// Work without memory: only the deadline stops it.
		readBomb("billion-row cross join count", "SELECT count(*) FROM c a, c b, c d", true, timedOut),
		readBomb("billion-row cross join rows", "SELECT a.x, b.x, d.x FROM c a, c b, c d", false, "# 1000 rows, truncated by limit=1000"),
		readBomb("billion-row cross join sorted", "SELECT a.x, b.x, d.x FROM c a, c b, c d ORDER BY random()", true, timedOut),
		readBomb("billion-row cross join distinct", "SELECT DISTINCT a.x * 1000000 + b.x * 1000 + d.x FROM c a, c b, c d ORDER BY 1 DESC", true, timedOut),
		readBomb("unbounded recursive CTE", counter(0)+"SELECT count(*) FROM r", true, timedOut),
		readBomb("unbounded recursive CTE with UNION", "WITH RECURSIVE r(x) AS (SELECT 1 UNION SELECT x + 1 FROM r) SELECT max(x) FROM r", true, timedOut),
		readBomb("unbounded recursive CTE rows", counter(0)+"SELECT x FROM r", false, "# 1000 rows, truncated by limit=1000"),
		// The parser and JSON depth limits.
		readBomb("deeply nested parentheses", "SELECT "+nested(100000, "(", "1", ")"), true, ""),
		readBomb("deeply nested subqueries", "SELECT "+nested(5000, "(SELECT ", "1", ")"), true, ""),
		readBomb("deeply nested JSON", "SELECT json("+repeat(100000, "[")+" || "+repeat(100000, "]")+")", true, "malformed JSON"),
		// A result whose full size would be 1 GB.
		readBomb("1 GB result, first page", counter(1000000)+"SELECT x, "+repeat(1000, "y")+" AS kb FROM r", false, "truncated at 32768 bytes"),
		{name: "1 GB result, paged to its end", tool: "read_query", args: map[string]any{
			"query": counter(10000000) + "SELECT x, " + repeat(100, "y") + " AS t FROM r", "limit": 1000, "offset": 9999990}, fails: true, want: timedOut},
		// Writes.
		writeBomb("insert a 1 GB zeroblob", "INSERT INTO w (b) VALUES (zeroblob(1000000000))", true, tooBig),
		writeBomb("insert a max-size value", "INSERT INTO w (b) VALUES ("+repeat(nearMax, "w")+")", false, "ok: 1 rows affected"),
		writeBomb("double the max-size value", "UPDATE w SET b = b || b", true, tooBig),
		writeBomb("insert a billion rows", "INSERT INTO w (b) "+counter(1000000000)+"SELECT x FROM r", true, timedOut),
		writeBomb("insert a billion rows returning", "INSERT INTO w (b) "+counter(1000000000)+"SELECT x FROM r RETURNING b", true, timedOut),
		{name: "delete over a billion-row join", tool: "destructive_query", args: map[string]any{
			"query": "DELETE FROM w WHERE b IN (SELECT a.x + b.x + d.x FROM c a, c b, c d)", "reason": "resource test"}, fails: true, want: timedOut},
		{name: "view over a billion-row join", tool: "create_view", args: map[string]any{
			"name": "bomb_view", "select_sql": "SELECT a.x AS ax, b.x AS bx, d.x AS dx FROM c a, c b, c d"}, want: "bomb_view"},
		readBomb("count the view", "SELECT count(*) FROM bomb_view", true, timedOut),
		// Memory tools and search over huge values.
		// An argument is refused unread above --max-request-bytes (1 MiB):
		// decoding JSON costs many times its size.
		{name: "append a 4 MB event", tool: "append_event", args: map[string]any{"content": strings.Repeat("e", 4<<20)}, fails: true, want: "over the server's limit of 1048576 bytes"},
		{name: "append a 1 MB event", tool: "append_event", args: map[string]any{"content": strings.Repeat("e", 1000000)}, want: "appended"},
		{name: "search a max-size value", tool: "search_text", args: map[string]any{"table": "w", "pattern": "w{10}$"}, want: "matching values"},
		{name: "search a 1 MB event", tool: "search_text", args: map[string]any{"table": "memory_events", "pattern": "e$"}, want: "matching values"},
		{name: "search under a billion-row WHERE", tool: "search_text", args: map[string]any{
			"table": "w", "pattern": "x", "where": "(SELECT count(*) FROM c a, c b, c d) > 0"}, fails: true, want: timedOut},
	}
}

// TestResourceBombs pins docs/decisions.md#hardening: each bomb answers within the
// deadline plus a margin, with a clear error or a capped result, the
// process stays under ~100 MB RSS, and the next call works. The bombs only
// the clock can stop run on a server with a 2 s deadline; the others on one
// whose deadline their work never meets, so that a busy machine slows them
// down but cannot change their answer.
func TestResourceBombs(t *testing.T) {
	t.Parallel()
	measure := runtime.GOOS == "linux"
	db := newDB(t)
	setup := start(t, db).Session
	mustCall(t, setup, "write_query", map[string]any{"query": "CREATE TABLE c (x INTEGER)"})
	mustCall(t, setup, "write_query", map[string]any{"query": "INSERT INTO c (x) " + counter(1000) + "SELECT x FROM r"})
	mustCall(t, setup, "write_query", map[string]any{"query": "CREATE TABLE w (b)"})
	require.NoError(t, setup.Close())
	clocked := start(t, db, "--query-timeout", strconv.Itoa(int(bombTimeout.Seconds())))
	working := start(t, db, "--query-timeout", strconv.Itoa(int(workTimeout.Seconds())))
	if measure {
		for _, p := range []*e2e.Process{clocked, working} {
			start := memoryOf(t, p.Cmd.Process.Pid)
			t.Logf("server at rest: VmRSS %d kB, VmHWM %d kB", start.RSS, start.Peak)
		}
	}
	perBomb, peak := true, 0
	for _, b := range resourceBombs() {
		p, bound := working, workTimeout+answerMargin
		if b.want == timedOut {
			p, bound = clocked, bombTimeout+answerMargin
		}
		cs, pid := p.Session, p.Cmd.Process.Pid
		if measure {
			perBomb = perBomb && e2e.ResetPeak(pid)
		}
		began := time.Now()
		out, isErr, err := call(cs, b.tool, b.args)
		took := time.Since(began)
		require.NoError(t, err, "%s: protocol error; the server may have died", b.name)
		assert.Less(t, took, slack.Of(bound), "%s: answered too late", b.name)
		assert.Equal(t, b.fails, isErr, "%s: tool error?\n%s", b.name, abbreviate(out))
		assert.Contains(t, out, b.want, "%s", b.name)
		assert.Less(t, len(out), 64<<10, "%s: the answer itself is capped", b.name)
		var m e2e.Memory
		if measure {
			m = memoryOf(t, pid)
			peak = max(peak, m.Peak)
			assert.Less(t, m.Peak, rssBudgetKB, "%s: peak RSS", b.name)
		}
		t.Logf("%-36s %6v  peak %6d kB  now %6d kB  %s", b.name, took.Round(time.Millisecond), m.Peak, m.RSS, abbreviate(firstLine(out)))
		assert.Equal(t, "1\n1\n# 1 rows", mustCall(t, cs, "read_query", map[string]any{"query": "SELECT 1"}), "%s: the next call works", b.name)
	}
	if !measure {
		t.Log("RSS not measured: /proc is Linux only")
		return
	}
	if !perBomb {
		t.Log("the kernel refused to reset VmHWM; each peak above is the peak since start")
	}
	for _, p := range []*e2e.Process{clocked, working} {
		m := memoryOf(t, p.Cmd.Process.Pid)
		peak = max(peak, m.Peak)
		t.Logf("server at the end: VmRSS %d kB", m.RSS)
	}
	t.Logf("peak over all bombs %d kB", peak)
	assert.Less(t, peak, rssBudgetKB, "peak RSS over the whole run")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func abbreviate(s string) string {
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}
