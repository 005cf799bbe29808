package e2e_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// One memory budget for the whole process (docs/decisions.md#sqlite-memory), whatever the row
// shape, the number of calls in flight or the search. Each test runs the
// built binary, reads its peak RSS from /proc, and checks the answer time,
// the error's advice and that the next call works.

// memBudgetKB is the process's memory budget (README "Limits"): peak
// RSS under 150 MB whatever the agent asks, in the kB /proc reports.
const memBudgetKB = 150 * 1024

// memHeapAdvice is what a statement refused for memory must say.
const memHeapAdvice = "--max-sqlite-heap-bytes"

// memServer is one server under test with its pid, for /proc.
type memServer struct {
	cs      *mcp.ClientSession
	pid     int
	timeout time.Duration // its --query-timeout
}

// memStart starts a server whose deadline is bombTimeout on an idle
// machine and grows with the load (slack.Of), in whole seconds: the calls
// these tests expect to succeed must not meet it on a busy machine, and
// the bombs still end at it.
func memStart(t *testing.T, args ...string) memServer {
	t.Helper()
	secs := max(int(bombTimeout.Seconds()), int(math.Ceil(slack.Of(bombTimeout).Seconds())))
	return memStartWith(t, time.Duration(secs)*time.Second, args...)
}

// memStartWith starts a server with exactly this deadline, for a test of
// the deadline itself.
func memStartWith(t *testing.T, timeout time.Duration, args ...string) memServer {
	t.Helper()
	args = append([]string{"--query-timeout", strconv.Itoa(int(timeout.Seconds()))}, args...)
	p := start(t, newDB(t), args...)
	return memServer{cs: p.Session, pid: p.Cmd.Process.Pid, timeout: timeout}
}

// timedOut is the error of a call that met s's deadline.
func (s memServer) timedOut() string {
	return fmt.Sprintf("query exceeded %ds and was cancelled", int(s.timeout.Seconds()))
}

// memMeasure resets the peak RSS, runs fn and returns the peak it reached
// in kB (0 where /proc does not exist).
func (s memServer) memMeasure(t *testing.T, fn func()) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		fn()
		return 0
	}
	e2e.ResetPeak(s.pid)
	fn()
	return memoryOf(t, s.pid).Peak
}

// memNextCallWorks checks that the server still answers.
func (s memServer) memNextCallWorks(t *testing.T, after string) {
	t.Helper()
	assert.Equal(t, "1\n1\n# 1 rows", mustCall(t, s.cs, "read_query", map[string]any{"query": "SELECT 1"}), "after %s: the next call works", after)
}

// memWideRow is a SELECT of n columns, each a text of size bytes.
func memWideRow(n, size int, fn string) string {
	cols := make([]string, n)
	for i := range cols {
		switch fn {
		case "blob":
			cols[i] = fmt.Sprintf("CAST(%s AS BLOB) AS c%d", repeat(size, "b"), i)
		default:
			cols[i] = fmt.Sprintf("%s AS c%d", repeat(size, string(rune('a'+i%26))), i)
		}
	}
	return "SELECT " + strings.Join(cols, ", ")
}

// TestMemoryRowShapes: SQLite holds every value of a row at once, so the
// per-value cap (8 MiB) does not bound a row; before SQLite's heap limit a
// row of 150 columns of 8 MB peaked at 2.4 GB. Each shape must fail cleanly
// with advice, within the deadline, under the budget.
func TestMemoryRowShapes(t *testing.T) {
	t.Parallel()
	s := memStart(t)
	for _, c := range []struct {
		name  string
		query string
		tool  string
	}{
		{"40 text columns of 8 MB", memWideRow(40, nearMax, "text"), "read_query"},
		{"150 text columns of 8 MB", memWideRow(150, nearMax, "text"), "read_query"},
		{"2000 text columns of 8 MB", memWideRow(2000, nearMax, "text"), "read_query"},
		{"150 blob columns of 8 MB", memWideRow(150, nearMax, "blob"), "read_query"},
		{"150 text columns of 8 MB, sorted", counter(3) + strings.Replace(memWideRow(150, nearMax, "text"), "SELECT ", "SELECT x, ", 1) + " FROM r ORDER BY x DESC", "read_query"},
		{"lengths of 150 columns of 8 MB", "SELECT length(c0), length(c75), length(c149) FROM (" + memWideRow(150, nearMax, "text") + ")", "read_query"},
		{"150 columns of 8 MB concatenated", "SELECT length(" + strings.Join(memCols(150), " || ") + ") FROM (" + memWideRow(150, nearMax, "text") + ")", "read_query"},
		{"insert 150 columns of 8 MB", "INSERT INTO wide_t SELECT * FROM (" + memWideRow(150, nearMax, "text") + ")", "write_query"},
	} {
		if c.tool == "write_query" {
			mustCall(t, s.cs, "write_query", map[string]any{"query": "CREATE TABLE IF NOT EXISTS wide_t (" + strings.Join(memCols(150), ", ") + ")"})
		}
		var out string
		var isErr bool
		var took time.Duration
		peak := s.memMeasure(t, func() {
			began := time.Now()
			var err error
			out, isErr, err = call(s.cs, c.tool, map[string]any{"query": c.query})
			took = time.Since(began)
			require.NoError(t, err, "%s: protocol error; the server may have died", c.name)
		})
		t.Logf("%-36s %6v  peak %6d kB  %s", c.name, took.Round(time.Millisecond), peak, abbreviate(out))
		assert.Less(t, took, slack.Of(s.timeout+answerMargin), "%s: answered too late", c.name)
		if runtime.GOOS == "linux" {
			assert.Less(t, peak, memBudgetKB, "%s: peak RSS", c.name)
		}
		if isErr {
			// "too big" is fine too: the group_concat shape may reach the
			// value cap before the heap limit.
			if !strings.Contains(out, tooBig) {
				assert.Contains(t, out, memHeapAdvice, "%s: the error names the setting", c.name)
				assert.Contains(t, out, "fewer or shorter columns", "%s: the error says what to narrow", c.name)
			}
		}
		if c.tool == "write_query" {
			assert.True(t, isErr, "%s: must fail", c.name)
			assert.Equal(t, "n\n0\n# 1 rows", mustCall(t, s.cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM wide_t"}), "%s: nothing was written", c.name)
		}
		s.memNextCallWorks(t, c.name)
	}
	// A row that fits is still read: the limit is not a cap on values.
	out := mustCall(t, s.cs, "read_query", map[string]any{"query": memWideRow(3, nearMax, "text")})
	assert.Contains(t, out, "# 1 rows")
}

// TestMemoryConcurrentCalls: calls in flight are bounded
// (--max-concurrent-calls); the rest wait. 64 concurrent calls, each
// holding a 16 MB row or carrying a large argument, must all answer
// within their deadline, under the budget, and the server goes on.
func TestMemoryConcurrentCalls(t *testing.T) {
	t.Parallel()
	s := memStart(t)
	bigRow := memWideRow(2, nearMax, "text")
	bigArg := "SELECT length('" + strings.Repeat("q", 500_000) + "') AS n"
	for _, c := range []struct {
		name, query, want string
	}{
		{"64 reads of a 16 MB row", bigRow, "# 1 rows"},
		{"64 reads with a 500 kB argument", bigArg, "n\n500000\n# 1 rows"},
	} {
		// The 64 requests travel one after another over one pipe, and this
		// client (race-instrumented in CI) is slow to encode large ones:
		// that time, 64 times one call's round trip, comes before the
		// server's deadline starts, so it is allowed on top of it.
		began := time.Now()
		mustCall(t, s.cs, "read_query", map[string]any{"query": c.query})
		transfer := 64 * time.Since(began)
		if c.query == bigRow {
			transfer = 0 // small requests: the bound is the deadline alone
		}
		const n = 64
		var mu sync.Mutex
		outcomes := map[string]int{}
		var slowest time.Duration
		peak := s.memMeasure(t, func() {
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					began := time.Now()
					out, isErr, err := call(s.cs, "read_query", map[string]any{"query": c.query})
					took := time.Since(began)
					mu.Lock()
					defer mu.Unlock()
					slowest = max(slowest, took)
					switch {
					case err != nil:
						outcomes["protocol error: "+err.Error()]++
					case !isErr && strings.Contains(out, c.want):
						outcomes["ok"]++
					case isErr && strings.Contains(out, "--max-concurrent-calls"):
						outcomes["no slot before the deadline"]++
					case isErr && strings.Contains(out, memHeapAdvice):
						outcomes["out of SQLite heap"]++
					case isErr && strings.Contains(out, s.timedOut()):
						outcomes["got a slot, then ran out of time"]++
					default:
						outcomes["unexpected: "+abbreviate(out)]++
					}
				})
			}
			wg.Wait()
		})
		t.Logf("%-34s slowest %v (allowed for transfer %v)  peak %6d kB  %v", c.name, slowest.Round(time.Millisecond), transfer.Round(time.Millisecond), peak, outcomes)
		assert.Less(t, slowest, slack.Of(s.timeout+answerMargin+transfer), "%s: every call answers within its deadline, counted from arrival", c.name)
		if runtime.GOOS == "linux" {
			assert.Less(t, peak, memBudgetKB, "%s: peak RSS", c.name)
		}
		assert.Positive(t, outcomes["ok"], "%s: some calls succeed", c.name)
		for k := range outcomes {
			assert.NotContains(t, []string{"protocol", "unexpected"}, strings.SplitN(k, ":", 2)[0], "%s: %s", c.name, k)
		}
		s.memNextCallWorks(t, c.name)
		// The server's own writes are not starved by the agent's statements:
		// every call, refused ones included, has its audit row.
		logged := mustCall(t, s.cs, "read_query", map[string]any{"query": fmt.Sprintf(
			"SELECT count(*) AS n FROM query_log WHERE tool = 'read_query' AND query = '%s'", strings.ReplaceAll(c.query, "'", "''"))})
		assert.Equal(t, fmt.Sprintf("n\n%d\n# 1 rows", n+1), logged, "%s: every call is audited", c.name)
	}
}

func memCols(n int) []string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i)
	}
	return cols
}

// TestMemorySlotWait: with one slot, 16 calls that each run to the deadline
// arrive at once. Every one answers within its deadline (counted from
// arrival) plus the margin, not one after another, and those that never got
// the slot say which setting to raise.
func TestMemorySlotWait(t *testing.T) {
	t.Parallel()
	s := memStart(t, "--max-concurrent-calls", "1")
	var mu sync.Mutex
	var slowest time.Duration
	outcomes := map[string]int{}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			began := time.Now()
			out, _, err := call(s.cs, "read_query", map[string]any{"query": counter(0) + "SELECT count(*) FROM r"})
			mu.Lock()
			defer mu.Unlock()
			slowest = max(slowest, time.Since(began))
			switch {
			case err != nil:
				outcomes["protocol error"]++
			case strings.Contains(out, "--max-concurrent-calls"):
				outcomes["no slot"]++
			case strings.Contains(out, s.timedOut()):
				outcomes["timed out"]++
			default:
				outcomes["unexpected: "+abbreviate(out)]++
			}
		})
	}
	wg.Wait()
	t.Logf("slowest %v, %v", slowest.Round(time.Millisecond), outcomes)
	assert.Less(t, slowest, slack.Of(s.timeout+answerMargin))
	assert.Positive(t, outcomes["no slot"])
	assert.Equal(t, 16, outcomes["no slot"]+outcomes["timed out"], "%v", outcomes)
	s.memNextCallWorks(t, "16 calls behind one slot")
}

// TestMemorySearchEveryCharacterMatches: rg --json lists every submatch, so
// a value of nearly 8 MiB matching at every character was one ~430 MB
// output line, read whole (390 MB RSS). Both engines must answer within
// the deadline, under the budget, with the first match.
func TestMemorySearchEveryCharacterMatches(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		args []string
	}{
		{"ripgrep", nil},
		{"regexp2", []string{"--rg", "/nonexistent/rg"}},
	} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			if engine.name == "ripgrep" {
				contract.RequireRg(t)
			}
			s := memStart(t, engine.args...)
			mustCall(t, s.cs, "write_query", map[string]any{"query": "CREATE TABLE big (v TEXT)"})
			mustCall(t, s.cs, "write_query", map[string]any{"query": "INSERT INTO big VALUES (" + repeat(nearMax, "a") + "), (" +
				"replace(" + repeat(nearMax/6, "x") + ", 'x', char(1, 233))), ('short a')"})
			for _, pattern := range []string{".", "a", `\w`, "(?i)A", "[^x]"} {
				var out string
				var isErr bool
				var took time.Duration
				peak := s.memMeasure(t, func() {
					began := time.Now()
					var err error
					out, isErr, err = call(s.cs, "search_text", map[string]any{"table": "big", "pattern": pattern, "context_chars": 5})
					require.NoError(t, err, "protocol error; the server may have died")
					took = time.Since(began)
				})
				t.Logf("%s /%s/: %v, peak %d kB: %s", engine.name, pattern, took.Round(time.Millisecond), peak, abbreviate(strings.ReplaceAll(out, "\n", " | ")))
				assert.Less(t, took, slack.Of(s.timeout+answerMargin), "/%s/ answered in time", pattern)
				if runtime.GOOS == "linux" {
					assert.Less(t, peak, memBudgetKB, "/%s/: peak RSS", pattern)
				}
				if isErr {
					// ripgrep writes every submatch of the line: ~450 MB of
					// JSON for "." over 8 MiB, over 2 s of its own CPU. It
					// may run out of the 2 s deadline; the server skips what
					// it does not need, so memory stays flat either way.
					require.Equal(t, "ripgrep", engine.name, "/%s/: %s", pattern, out)
					assert.Contains(t, out, "exceeded 2s", pattern)
					continue
				}
				assert.Contains(t, out, "1,v,aaaaaa...", "/%s/: the first match of the long value", pattern)
				assert.Contains(t, out, "matching values in", pattern)
				assert.Contains(t, out, "2 values longer than 524288 bytes were searched in their first 524288 bytes only (--max-search-value-bytes)", pattern)
			}
			s.memNextCallWorks(t, engine.name)
		})
	}
}

// TestMemoryHungRgAndItsChildrenEnd: a --rg program that hangs after
// forking a child is ended with its whole process group at the deadline.
func TestMemoryHungRgAndItsChildrenEnd(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("process groups are Unix only")
	}
	marker := fmt.Sprintf("30.%09d", time.Now().UnixNano()%1e9) // a unique sleep length
	script := filepath.Join(t.TempDir(), "slow-rg")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nsleep "+marker+" &\nsh -c 'sleep "+marker+"' &\nsleep "+marker+"\n"), 0o755))
	s := memStartWith(t, bombTimeout, "--rg", script) // the deadline is what ends the script
	mustCall(t, s.cs, "write_query", map[string]any{"query": "CREATE TABLE t (v TEXT)"})
	mustCall(t, s.cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES ('hello')"})
	began := time.Now()
	out := mustFail(t, s.cs, "search_text", map[string]any{"table": "t", "pattern": "hello"})
	assert.Less(t, time.Since(began), slack.Of(s.timeout+answerMargin))
	assert.Contains(t, out, "exceeded 2s")
	var alive []string
	for deadline := time.Now().Add(slack.Of(time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if alive = memProcesses(t, marker); len(alive) == 0 {
			break
		}
	}
	assert.Empty(t, alive, "the script and every child it forked are gone within a second of the answer (on an idle machine)")
	s.memNextCallWorks(t, "a hung rg")
}

// memProcesses lists live processes whose command line holds marker.
func memProcesses(t *testing.T, marker string) []string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(paths) == 0 {
		require.Empty(t, os.Getenv("CI"), "CI runs on Linux: /proc must be there")
		t.Skip("no /proc to list processes")
	}
	var out []string
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// TestMemoryConcurrentSearches: a search holds whole values in Go memory,
// outside SQLite's heap (the regexp2 engine about 5 times their size): 16
// concurrent searches of an 8 MiB value peaked at 370 MB before searches
// were bounded (--max-concurrent-searches). Each answers in time, under
// the budget, with a match or with the setting to raise.
func TestMemoryConcurrentSearches(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		args []string
	}{
		{"ripgrep", nil},
		{"regexp2", []string{"--rg", "/nonexistent/rg"}},
	} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			if engine.name == "ripgrep" {
				contract.RequireRg(t)
			}
			s := memStart(t, engine.args...)
			mustCall(t, s.cs, "write_query", map[string]any{"query": "CREATE TABLE big (v TEXT)"})
			// One match as long as the searched head: a greedy repetition,
			// whose backtracking stack in regexp2 grows with its length.
			mustCall(t, s.cs, "write_query", map[string]any{"query": "INSERT INTO big VALUES ('a' || " + repeat(nearMax, "b") + ")"})
			var mu sync.Mutex
			var slowest time.Duration
			outcomes := map[string]int{}
			peak := s.memMeasure(t, func() {
				var wg sync.WaitGroup
				for range 16 {
					wg.Go(func() {
						began := time.Now()
						out, isErr, err := call(s.cs, "search_text", map[string]any{"table": "big", "pattern": "ab*"})
						mu.Lock()
						defer mu.Unlock()
						slowest = max(slowest, time.Since(began))
						switch {
						case err != nil:
							outcomes["protocol error"]++
						case !isErr && strings.Contains(out, "# 1 of 1 matching values"):
							outcomes["ok"]++
						case isErr && strings.Contains(out, "--max-concurrent-searches"):
							outcomes["no search slot"]++
						case isErr && strings.Contains(out, "--max-concurrent-calls"):
							outcomes["no call slot"]++ // searches waiting for theirs hold the call slots
						case isErr && (strings.Contains(out, "exceeded") || strings.Contains(out, memHeapAdvice)):
							outcomes["got a slot, then ran out of time or heap"]++
						default:
							outcomes["unexpected: "+abbreviate(out)]++
						}
					})
				}
				wg.Wait()
			})
			t.Logf("%s: slowest %v  peak %d kB  %v", engine.name, slowest.Round(time.Millisecond), peak, outcomes)
			assert.Less(t, slowest, slack.Of(s.timeout+answerMargin))
			if runtime.GOOS == "linux" {
				assert.Less(t, peak, memBudgetKB, "peak RSS")
			}
			assert.Positive(t, outcomes["ok"])
			assert.Zero(t, outcomes["protocol error"])
			for k := range outcomes {
				assert.False(t, strings.HasPrefix(k, "unexpected"), k)
			}
			s.memNextCallWorks(t, "16 concurrent searches")
		})
	}
}
