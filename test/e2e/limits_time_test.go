package e2e_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// docs/decisions.md#bounded-built-ins: one call of a built-in whose cost is super-linear in its
// arguments is one SQLite step, which the deadline's interrupt could not
// cut short. Each such function in the inventory (adapters/sqlite/
// engine/bounded.go) runs here on two values near the value cap, chosen to cost
// the most, in each place agent SQL can call it: read_query, write_query,
// a generated column (the INSERT computes it) and a BEFORE INSERT trigger
// (an AFTER trigger would meet the row-size limit first: the two arguments
// together are near the value cap).

// timeNoise is how much later than the contract (deadline + 1 s) an answer
// may come on a shared, noisy machine running ten servers at once.
const timeNoise = 2 * time.Second

// timeIdleCPU is the most CPU the server may use in the timeIdleWindow
// after a bomb's answer: close to idle (the audit row and the Go runtime's
// housekeeping), far below the window itself.
const (
	timeIdleWindow = 2 * time.Second
	timeIdleCPU    = 300 * time.Millisecond
)

// timeBomb is one super-linear function: expr calls it on X and Y, which
// are replaced by SQL for the arguments (x and y) or by column names.
// refused, when set, is the error a bounded function gives at once instead
// of running until the deadline.
type timeBomb struct {
	name, expr, x, y string
	refused          string
}

func timeBombs() []timeBomb {
	a := func(n int) string { return repeat(n, "a") }
	return []timeBomb{
		{"instr", "instr(X, Y)", a(6000000), a(2000000) + " || 'b'", ""},
		{"replace", "replace(X, Y, 'c')", a(6000000), a(2000000) + " || 'b'", ""},
		{"trim", "trim(X, Y)", a(4000000), repeat(4000000, "b") + " || 'a'", ""},
		{"ltrim", "ltrim(X, Y)", a(4000000), repeat(4000000, "b") + " || 'a'", ""},
		{"rtrim", "rtrim(X, Y)", a(4000000), repeat(4000000, "b") + " || 'a'", ""},
		{"like", "(X LIKE Y)", a(nearMax), "'%' || " + a(40000) + " || 'b'", ""},
		{"like escape", "(X LIKE Y ESCAPE '!')", a(nearMax), "'%' || " + a(40000) + " || 'b'", ""},
		{"glob", "(X GLOB Y)", a(nearMax), "'*' || " + a(40000) + " || 'b'", ""},
		{"glob class", "(X GLOB Y)", a(nearMax), "'*[a]' || " + repeat(10000, "?") + " || 'b'", ""},
		{"unhex", "unhex(X, Y)", repeat(4000000, "x"), repeat(4000000, "y") + " || 'x'", ""},
		{"json_extract", "json_extract(X" + strings.Repeat(", Y", 99) + ")", timeDoc(1300000), "'$.zz'", "json_extract of 99 paths"},
		{"json_set", "json_set(X" + strings.Repeat(", Y, 1", 50) + ")", timeDoc(1300000), "'$.zz'", "json_set of 50 paths"},
		{"json_patch", "json_patch(X, Y)", timeObject("a", 20000), timeObject("b", 20000), "json_patch of a document of up to"},
	}
}

// timeObject is SQL for a JSON object of n keys named prefix0, prefix1, ...
func timeObject(prefix string, n int) string {
	return fmt.Sprintf("(SELECT json_group_object('%s' || i, 1) FROM (%sSELECT x - 1 AS i FROM r))", prefix, counter(n))
}

// timeDoc is SQL for a JSON object of n members (6 bytes each), built
// without a slow CTE.
func timeDoc(n int) string {
	return fmt.Sprintf("('{' || replace(%s, 'x', '\"k\":1,') || '\"z\":0}')", repeat(n, "x"))
}

// with fills in the bomb's arguments.
func (b timeBomb) with(x, y string) string {
	return strings.NewReplacer("X", x, "Y", y).Replace(b.expr)
}

// timeCPUOf reads the server's CPU time so far.
func timeCPUOf(t *testing.T, pid int) time.Duration {
	d, err := e2e.TimeCPU(pid)
	if err != nil {
		t.Errorf("reading the server's CPU time: %v", err)
	}
	return d
}

// timeLockFreeAfter waits, from a connection of its own, until the
// database's write lock is free and returns when that was, counted from
// began. It first waits for the call to take the lock, or to end (closing
// ended) without the lock having been seen taken.
func timeLockFreeAfter(db *sql.DB, began time.Time, ended <-chan struct{}) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return 0, err
	}
	if _, err := signalWriteLockTaken(ctx, conn, ended); err != nil {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 20000"); err != nil {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return 0, err
	}
	free := time.Since(began)
	_, err = conn.ExecContext(ctx, "ROLLBACK")
	return free, err
}

// TestTimeBombsStopAtTheDeadline runs every bomb of the inventory in its own
// server (in parallel, to keep the test short) and checks, for each call:
// the answer is a timeout within the deadline + 1 s, the server then stays
// idle, a failed write left nothing and released the write lock by the
// deadline + 1 s, and the next call works.
func TestTimeBombsStopAtTheDeadline(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		if os.Getenv("CI") != "" {
			t.Fatal("CPU time is read from /proc, which CI must have")
		}
		t.Skip("CPU time is read from /proc: Linux only")
	}
	type server struct {
		p  *e2e.Process
		db *sql.DB
	}
	bombs := timeBombs()
	servers := make([]server, len(bombs))
	for i, b := range bombs {
		path := newDB(t)
		// A bomb a bound refuses must be refused by the bound, never by the
		// clock, however busy the machine.
		timeout := bombTimeout
		if b.refused != "" {
			timeout = workTimeout
		}
		servers[i].p = start(t, path, "--query-timeout", strconv.Itoa(int(timeout.Seconds())))
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(20000)")
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		servers[i].db = db
	}
	var wg sync.WaitGroup
	for i, b := range bombs {
		wg.Go(func() { timeRunBomb(t, b, servers[i].p, servers[i].db) })
	}
	wg.Wait()
}

// timeRunBomb runs one bomb in the four places. It runs on its own
// goroutine, so it only uses assert.
func timeRunBomb(t *testing.T, b timeBomb, p *e2e.Process, db *sql.DB) {
	cs, pid := p.Session, p.Cmd.Process.Pid
	setup := []struct{ tool, sql string }{
		{"write_query", "CREATE TABLE sink (v)"},
		{"write_query", "CREATE TABLE src (x TEXT, y TEXT)"},
		{"write_query", "CREATE TABLE gen (x TEXT, y TEXT, z AS (" + b.with("x", "y") + ") STORED)"},
		{"destructive_query", "CREATE TRIGGER src_bomb BEFORE INSERT ON src BEGIN INSERT INTO sink (v) VALUES (" + b.with("NEW.x", "NEW.y") + "); END"},
	}
	for _, s := range setup {
		args := map[string]any{"query": s.sql}
		if s.tool == "destructive_query" {
			args["reason"] = "time bomb setup"
		}
		out, isErr, err := call(cs, s.tool, args)
		if !assert.NoError(t, err, "%s: %s", b.name, s.sql) || !assert.False(t, isErr, "%s: %s: %s", b.name, s.sql, out) {
			return
		}
	}
	arg := b.with(b.x, b.y)
	modes := []struct {
		name, tool, sql string
	}{
		{"read_query", "read_query", "SELECT " + arg + " AS v"},
		{"write_query", "write_query", "INSERT INTO sink (v) SELECT " + arg},
		{"generated column", "write_query", "INSERT INTO gen (x, y) VALUES (" + b.x + ", " + b.y + ")"},
		{"trigger", "write_query", "INSERT INTO src (x, y) VALUES (" + b.x + ", " + b.y + ")"},
	}
	for _, m := range modes {
		what := b.name + " via " + m.name
		cpuBefore := timeCPUOf(t, pid)
		began := time.Now()
		var lockFree time.Duration
		var lockErr error
		var watch sync.WaitGroup
		ended := make(chan struct{})
		if m.tool != "read_query" {
			watch.Go(func() { lockFree, lockErr = timeLockFreeAfter(db, began, ended) })
		}
		out, isErr, err := call(cs, m.tool, map[string]any{"query": m.sql})
		answered := time.Now()
		close(ended)
		took := answered.Sub(began)
		cpu0 := timeCPUOf(t, pid)
		if !assert.NoError(t, err, "%s: protocol error; the server may have died", what) {
			return
		}
		assert.Less(t, took, slack.Of(bombTimeout+time.Second+timeNoise), "%s: answered too late", what)
		assert.True(t, isErr, "%s: must fail, got: %s", what, abbreviate(out))
		want := timedOut
		if b.refused != "" {
			want = b.refused
		}
		assert.Contains(t, out, want, "%s", what)
		watch.Wait()
		if m.tool != "read_query" && assert.NoError(t, lockErr, "%s: taking the write lock", what) {
			assert.Less(t, lockFree, slack.Of(bombTimeout+time.Second+timeNoise), "%s: the write lock was held too long", what)
		}
		time.Sleep(timeIdleWindow - time.Since(answered))
		cpu := timeCPUOf(t, pid) - cpu0
		assert.Less(t, cpu, timeIdleCPU, "%s: the server kept spending CPU after the answer", what)
		if b.refused == "" {
			// The reader itself works: the bomb burned CPU until the deadline.
			assert.Positive(t, cpu0-cpuBefore, "%s: CPU during the call", what)
		}
		t.Logf("%-32s answered %6v, lock free at %6v, CPU during %6v, in the %v after %v",
			what, took.Round(time.Millisecond), lockFree.Round(time.Millisecond), cpu0-cpuBefore, timeIdleWindow, cpu)
		left, isErr, err := call(cs, "read_query", map[string]any{
			"query": "SELECT (SELECT count(*) FROM sink) + (SELECT count(*) FROM src) + (SELECT count(*) FROM gen) AS n"})
		if assert.NoError(t, err, what) && assert.False(t, isErr, "%s: the next call works: %s", what, left) {
			assert.Equal(t, "n\n0\n# 1 rows", left, "%s: the failed call left nothing", what)
		}
	}
}

// TestTimeFTS5AuxiliariesAreBounded: snippet() scores every match of a row
// against every other, and highlight() copies its output whole for each
// match; a row made of one term repeated makes either run for minutes in
// one step. The server refuses such a row at once, through read_query and
// write_query, leaves nothing behind, stays idle, and the next call works.
func TestTimeFTS5AuxiliariesAreBounded(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		if os.Getenv("CI") != "" {
			t.Fatal("CPU time is read from /proc, which CI must have")
		}
		t.Skip("CPU time is read from /proc: Linux only")
	}
	p := start(t, newDB(t), "--query-timeout", strconv.Itoa(int(bombTimeout.Seconds())))
	cs, pid := p.Session, p.Cmd.Process.Pid
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE VIRTUAL TABLE f USING fts5(body)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE sink (v)"})
	// 40,000 and 1,000,000 matches of "fox" (160 kB and 4 MB).
	for _, n := range []int{40000, 1000000} {
		mustCall(t, cs, "write_query", map[string]any{"query": fmt.Sprintf(
			"INSERT INTO f (body) VALUES (trim(replace(%s, 'x', 'fox ')))", repeat(n, "x"))})
	}
	calls := []struct{ name, tool, sql, want string }{
		{"snippet", "read_query", "SELECT snippet(f, 0, '[', ']', '...', 8) FROM f WHERE f MATCH 'fox' AND rowid = 1", "snippet() of a row with 40000 matches is refused"},
		{"highlight", "read_query", "SELECT highlight(f, 0, '[', ']') FROM f WHERE f MATCH 'fox' AND rowid = 2", "highlight() of a 3999999-byte text with 1000000 matches is refused"},
		{"snippet into a table", "write_query", "INSERT INTO sink (v) SELECT snippet(f, 0, '[', ']', '...', 8) FROM f WHERE f MATCH 'fox'", "is refused"},
		{"highlight into a table", "write_query", "INSERT INTO sink (v) SELECT highlight(f, 0, '[', ']') FROM f WHERE f MATCH 'fox'", "is refused"},
	}
	for _, c := range calls {
		began := time.Now()
		out, isErr, err := call(cs, c.tool, map[string]any{"query": c.sql})
		answered := time.Now()
		cpu0 := timeCPUOf(t, pid)
		require.NoError(t, err, "%s: protocol error; the server may have died", c.name)
		assert.Less(t, answered.Sub(began), slack.Of(bombTimeout+time.Second+timeNoise), "%s: answered too late", c.name)
		assert.True(t, isErr, "%s: must be refused, got: %s", c.name, abbreviate(out))
		assert.Contains(t, out, c.want, "%s", c.name)
		time.Sleep(timeIdleWindow - time.Since(answered))
		cpu := timeCPUOf(t, pid) - cpu0
		assert.Less(t, cpu, timeIdleCPU, "%s: the server kept spending CPU after the answer", c.name)
		t.Logf("%-24s answered %6v, CPU in the %v after %v: %s", c.name, answered.Sub(began).Round(time.Millisecond), timeIdleWindow, cpu, abbreviate(out))
		assert.Equal(t, "n\n0\n# 1 rows", mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM sink"}),
			"%s: nothing left, and the next call works", c.name)
	}
}
