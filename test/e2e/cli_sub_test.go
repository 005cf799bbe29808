package e2e_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// cliSubCommands are the CLI subcommands of the binary.
var cliSubCommands = []string{"verify", "resume", "log", "snapshots", "call", "undo"}

// cliSubJSON runs a subcommand with --json, requires exit status want and
// decodes its stdout into v.
func cliSubJSON(t *testing.T, want int, v any, args ...string) {
	t.Helper()
	out := runBinary(t, nil, append(args, "--json")...)
	require.Equal(t, want, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	require.NoError(t, json.Unmarshal([]byte(out.stdout), v), "stdout: %s", out.stdout)
}

// cliSubLogRow is one row of `log --json`.
type cliSubLogRow struct {
	ID      int64   `json:"id"`
	Session string  `json:"session"`
	Tool    string  `json:"tool"`
	OK      bool    `json:"ok"`
	Query   *string `json:"query"`
	Error   *string `json:"error"`
}

func TestCLISubHelpAndUsageErrors(t *testing.T) {
	t.Parallel()
	for _, name := range cliSubCommands {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := runBinary(t, nil, name, "--help")
			assert.Equal(t, 0, out.code)
			assert.Contains(t, out.stdout, "Usage: mcp-sqlite-memory "+name)
			assert.Contains(t, out.stdout, "--json")
			bad := runBinary(t, nil, name, "--db", filepath.Join(t.TempDir(), "x.db"), "--no-such-flag")
			assert.Equal(t, 2, bad.code)
			assertOneLine(t, bad.stderr, "-no-such-flag", name+" --help")
		})
	}
	// The server's --help lists them.
	out := runBinary(t, nil, "--help")
	assert.Contains(t, out.stderr, "verify|resume|log|snapshots|call")
}

func TestCLISubNeverCreatesADatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "typo.db")
	for _, args := range [][]string{{"verify"}, {"resume"}, {"log"}, {"snapshots"}, {"call", "list_tables"}} {
		out := runBinary(t, nil, append(args, "--db", db)...)
		assert.Equal(t, 2, out.code, "%v", args)
		assertOneLine(t, out.stderr, "--db", "typo.db")
		assert.Empty(t, out.stdout)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing may be created for a mistyped --db")
}

// TestCLISubWhileServing runs every read and call subcommand on a file a
// server process is serving at the same time.
func TestCLISubWhileServing(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "memory.db")
	p := start(t, db)
	cs := p.Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)"})
	mustCall(t, cs, "append_event", map[string]any{"content": "decided on sqlite", "kind": "decision"})
	mustCall(t, cs, "checkpoint", map[string]any{"summary": "schema is in place"})
	mustCall(t, cs, "append_event", map[string]any{"content": "after the checkpoint", "kind": "note"})

	var chain struct {
		Events int64  `json:"events"`
		HeadID int64  `json:"head_id"`
		Hash   string `json:"head_hash"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustCall(t, cs, "verify_chain", nil)), &chain))
	out := runBinary(t, nil, "verify", "--db", db)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, fmt.Sprintf("chain ok: %d events, head #%d %s; 1 checkpoints, 1 sealed\n", chain.Events, chain.HeadID, chain.Hash), out.stdout,
		"the server's verify_chain, in words")

	out = runBinary(t, nil, "resume", "--db", db)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "schema is in place")
	assert.Contains(t, out.stdout, "after the checkpoint")
	assert.NotContains(t, out.stdout, "decided on sqlite", "events before the checkpoint are summarised by it")
	assert.Equal(t, mustCall(t, cs, "get_resume_context", nil)+"\n", out.stdout, "what an agent gets")

	// call: through the same core, audited under the CLI's own session.
	out = runBinary(t, nil, "call", "--db", db, "write_query", `{"query": "INSERT INTO notes(body) VALUES ('from the cli')"}`)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "1 rows affected")
	assert.Contains(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT body FROM notes"}), "from the cli")
	out = runBinary(t, nil, "call", "--db", db, "append_event", `{"content": "cli event", "kind": "note"}`)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, mustCall(t, cs, "verify_chain", nil), fmt.Sprintf(`"events": %d,`, chain.Events+1), "the server sees the CLI's event in one chain")

	// A tool error: text on stderr, exit 1; a policy refusal the same way.
	out = runBinary(t, nil, "call", "--db", db, "read_query", `{"query": "SELECT * FROM nope"}`)
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stderr, "no such table: nope")
	assert.Empty(t, out.stdout)
	out = runBinary(t, nil, "call", "--db", db, "read_query", `{"query": "DELETE FROM notes"}`)
	assert.Equal(t, 1, out.code, "the read tier refuses writes from the CLI too")
	var res struct {
		Tool string `json:"tool"`
		OK   bool   `json:"ok"`
		Text string `json:"text"`
	}
	cliSubJSON(t, 1, &res, "call", "--db", db, "write_query", `{"query": "DROP TABLE notes"}`)
	assert.Equal(t, "write_query", res.Tool)
	assert.False(t, res.OK)
	assert.Contains(t, res.Text, "destructive_query", "the policy's advice reaches the CLI user")
	assert.Contains(t, mustCall(t, cs, "list_tables", nil), "notes")
	// Argument checks are the server's own.
	out = runBinary(t, nil, "call", "--db", db, "read_query", `{"limit": 5}`)
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stderr, "query")
	out = runBinary(t, nil, "call", "--db", db, "read_query", `not json`)
	assert.Equal(t, 2, out.code)
	out = runBinary(t, nil, "call", "--db", db, "no_such_tool")
	assert.Equal(t, 2, out.code)
	assertOneLine(t, out.stderr, "no_such_tool")
	stdinCall := exec.Command(bin, "call", "--db", db, "read_query", "-")
	stdinCall.Env = e2e.Env()
	stdinCall.Stdin = strings.NewReader(`{"query": "SELECT body FROM notes"}`)
	piped, err := stdinCall.Output()
	require.NoError(t, err, "arguments from stdin")
	assert.Contains(t, string(piped), "from the cli")
	var resumed struct {
		Tool string `json:"tool"`
		OK   bool   `json:"ok"`
		Text string `json:"text"`
	}
	cliSubJSON(t, 0, &resumed, "resume", "--db", db, "--max-events", "1", "--exclude-kinds", "decision")
	assert.Equal(t, "get_resume_context", resumed.Tool)
	assert.True(t, resumed.OK)
	assert.Contains(t, resumed.Text, "cli event")
	assert.NotContains(t, resumed.Text, "after the checkpoint", "--max-events 1 keeps the latest event only")
	out = runBinary(t, nil, "call", "--db", db)
	assert.Equal(t, 0, out.code)
	assert.Contains(t, out.stdout, "read_query")
	assert.Contains(t, out.stdout, "destructive_query")

	// log: the rows above, with the CLI's sessions apart from the server's.
	var logged struct{ Rows []cliSubLogRow }
	cliSubJSON(t, 0, &logged, "log", "--db", db, "--limit", "100")
	sessions := map[string]bool{}
	var cliRows int
	for _, r := range logged.Rows {
		sessions[r.Session] = true
		if r.Query != nil && strings.Contains(*r.Query, "from the cli") {
			cliRows++
		}
	}
	assert.Equal(t, 1, cliRows, "the CLI's call is audited once")
	assert.GreaterOrEqual(t, len(sessions), 3, "the server and each CLI process have their own session ids")
	cliSubJSON(t, 0, &logged, "log", "--db", db, "--failures", "--tool", "read_query")
	require.Len(t, logged.Rows, 3, "three failed read_query calls")
	for _, r := range logged.Rows {
		assert.False(t, r.OK)
		assert.Equal(t, "read_query", r.Tool)
		require.NotNil(t, r.Error)
	}
	assert.Less(t, logged.Rows[0].ID, logged.Rows[2].ID, "oldest first")
	cliSubJSON(t, 0, &logged, "log", "--db", db, "--limit", "1")
	require.Len(t, logged.Rows, 1)
	cliSubJSON(t, 0, &logged, "log", "--db", db, "--since", "1h", "--tool", "it's none")
	assert.Empty(t, logged.Rows, "a quote in a filter is data")
	out = runBinary(t, nil, "log", "--db", db, "--failures", "--limit", "1")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "FAILED")
	assert.Contains(t, out.stdout, `missing required argument "query"`, "the call refused for its arguments is the last failure")
	out = runBinary(t, nil, "log", "--db", db, "--since", "yesterday")
	assert.Equal(t, 2, out.code)
	assertOneLine(t, out.stderr, "--since")

	// The server is still well after all that.
	assert.Contains(t, mustCall(t, cs, "verify_chain", nil), `"ok": true`)
}

func TestCLISubVerifyBrokenChainExitsOne(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "memory.db")
	p := start(t, db)
	for _, c := range []string{"one", "two", "three"} {
		mustCall(t, p.Session, "append_event", map[string]any{"content": c, "kind": "note"})
	}
	require.NoError(t, p.Session.Close())
	h, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	_, err = h.Exec(`DROP TRIGGER memory_events_no_update; UPDATE memory_events SET content = 'rewritten' WHERE id = 2`)
	require.NoError(t, err)
	require.NoError(t, h.Close())

	out := runBinary(t, nil, "verify", "--db", db)
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stdout, "chain BROKEN at event #2")
	var v struct {
		OK      bool  `json:"ok"`
		BreakAt int64 `json:"break_at_id"`
	}
	cliSubJSON(t, 1, &v, "verify", "--db", db)
	assert.False(t, v.OK)
	assert.Equal(t, int64(2), v.BreakAt)
}

func TestCLISubSnapshotsListAndRestoreWhileServing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "memory.db")
	p := start(t, db)
	cs := p.Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE t(x)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1), (2)"})
	mustCall(t, cs, "snapshot", map[string]any{"reason": "two rows"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (3)"})

	var list struct {
		Dir       string `json:"dir"`
		Snapshots []struct {
			Name  string `json:"name"`
			Path  string `json:"path"`
			Bytes int64  `json:"bytes"`
		} `json:"snapshots"`
	}
	cliSubJSON(t, 0, &list, "snapshots", "--db", db)
	require.Len(t, list.Snapshots, 1)
	name := list.Snapshots[0].Name
	assert.Positive(t, list.Snapshots[0].Bytes)
	out := runBinary(t, nil, "snapshots", "list", "--db", db)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, name)

	// Into a new file: the database is untouched, an existing file refused.
	copyPath := filepath.Join(dir, "copy.db")
	out = runBinary(t, nil, "snapshots", "restore", name, "--db", db, "--to", copyPath)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, 2, cliSubCount(t, copyPath))
	assert.Contains(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM t"}), "3")
	out = runBinary(t, nil, "snapshots", "restore", name, "--db", db, "--to", copyPath)
	assert.Equal(t, 1, out.code)
	assert.Equal(t, 2, cliSubCount(t, copyPath))
	for _, bad := range []string{db, db + "-wal", db + "-shm"} {
		out = runBinary(t, nil, "snapshots", "restore", name, "--db", db, "--to", bad)
		assert.Equal(t, 2, out.code, bad)
	}
	out = runBinary(t, nil, "snapshots", "restore", "../"+name, "--db", db, "--to", filepath.Join(dir, "x.db"))
	assert.Equal(t, 1, out.code)
	assert.NoFileExists(t, filepath.Join(dir, "x.db"))

	// Over the live database while the server runs: a fresh snapshot first,
	// then the server reads the restored rows.
	var restored struct {
		Restored string  `json:"restored"`
		Fresh    *string `json:"fresh_snapshot"`
	}
	cliSubJSON(t, 0, &restored, "snapshots", "restore", name, "--db", db, "--over")
	require.NotNil(t, restored.Fresh)
	assert.Equal(t, 3, cliSubCount(t, *restored.Fresh), "the fresh snapshot holds what was replaced")
	assert.Contains(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM t"}), "n\n2\n")
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (4)"})
	assert.Equal(t, 0, runBinary(t, nil, "verify", "--db", db).code)

	out = runBinary(t, nil, "snapshots", "restore", name, "--db", db)
	assert.Equal(t, 2, out.code, "neither --to nor --over")
	out = runBinary(t, nil, "snapshots", "restore", name, "--db", db, "--over", "--read-only")
	assert.Equal(t, 2, out.code)
	out = runBinary(t, nil, "snapshots", "restore", name, "--db", db, "--over", "--snapshots", "0")
	assert.Equal(t, 1, out.code)
	assertOneLine(t, out.stderr, "--snapshots")
}

// cliSubCount counts the rows of table t in the database at path.
func cliSubCount(t *testing.T, path string) int {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer h.Close()
	var n int
	require.NoError(t, h.QueryRow("SELECT count(*) FROM t").Scan(&n))
	return n
}

func TestCLISubReadOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "memory.db")
	p := start(t, db)
	mustCall(t, p.Session, "append_event", map[string]any{"content": "x", "kind": "note"})
	out := runBinary(t, nil, "call", "--db", db, "--read-only", "write_query", `{"query": "CREATE TABLE y(a)"}`)
	assert.Equal(t, 2, out.code)
	assertOneLine(t, out.stderr, "write_query", "--read-only")
	out = runBinary(t, nil, "verify", "--db", db, "--read-only")
	assert.Equal(t, 0, out.code, out.stderr)
	out = runBinary(t, nil, "log", "--db", db, "--read-only")
	assert.Equal(t, 2, out.code)
	assertOneLine(t, out.stderr, "--audit-db")
	audit := filepath.Join(dir, "audit.db")
	out = runBinary(t, nil, "call", "--db", db, "--read-only", "--audit-db", audit, "list_tables")
	require.Equal(t, 0, out.code, out.stderr)
	var logged struct{ Rows []cliSubLogRow }
	cliSubJSON(t, 0, &logged, "log", "--db", db, "--read-only", "--audit-db", audit)
	require.Len(t, logged.Rows, 1)
	assert.Equal(t, "list_tables", logged.Rows[0].Tool)
}

// TestCLISubTerminalHint starts the server with a terminal on stdin (through
// script(1)'s pseudo-terminal) and checks for the one hint.
func TestCLISubTerminalHint(t *testing.T) {
	t.Parallel()
	script, err := exec.LookPath("script")
	if err != nil {
		require.Empty(t, os.Getenv("CI"), "CI needs script(1) from util-linux")
		t.Skip("script(1) not installed")
	}
	db := filepath.Join(t.TempDir(), "memory.db")
	ctx, cancel := context.WithTimeout(context.Background(), slack.Of(20*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qefc", bin+" --db "+db, "/dev/null")
	cmd.Env = e2e.Env()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var out e2e.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Ctrl+C") }, slack.Of(15*time.Second), 20*time.Millisecond,
		"no hint; output: %q", out.String())
	_, _ = stdin.Write([]byte{4}) // Ctrl+D: end of input on the terminal
	_ = stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(slack.Of(10 * time.Second)):
		_ = cmd.Process.Kill()
		<-done
	}
	assert.Equal(t, 1, strings.Count(out.String(), "waits for an MCP client"), "one hint: %q", out.String())
	assert.Contains(t, out.String(), "verify|resume|log|snapshots|call")

	// Without a terminal (a client's pipe) there is no hint.
	p := start(t, filepath.Join(t.TempDir(), "other.db"))
	mustCall(t, p.Session, "list_tables", nil)
	assert.NotContains(t, p.Stderr.String(), "waits for an MCP client")
}

// TestCLISubRestoreOverUnderLoad restores over a database while one server
// process keeps writing and another keeps reading: every read sees one
// consistent state (rows 1..n, so the sum is n(n+1)/2), no call fails for
// anything but waiting, and the file ends intact.
func TestCLISubRestoreOverUnderLoad(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "memory.db")
	writer, reader := start(t, db), start(t, db)
	mustCall(t, writer.Session, "write_query", map[string]any{"query": "CREATE TABLE t(x INTEGER PRIMARY KEY)"})
	mustCall(t, writer.Session, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1), (2), (3)"})
	var snap struct {
		Snapshots []struct{ Name string } `json:"snapshots"`
	}
	mustCall(t, writer.Session, "snapshot", map[string]any{"reason": "three rows"})
	cliSubJSON(t, 0, &snap, "snapshots", "--db", db)
	require.Len(t, snap.Snapshots, 1)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan string, 2)
	next := "INSERT INTO t SELECT max(x) + 1 FROM t"
	go func() {
		for ctx.Err() == nil {
			if out, isErr, err := call(writer.Session, "write_query", map[string]any{"query": next}); err != nil || (isErr && !strings.Contains(out, "locked")) {
				errs <- "write: " + out + fmt.Sprint(err)
				return
			}
		}
		errs <- ""
	}()
	rewound := make(chan bool, 1)
	// What the reader has seen so far, for the main goroutine to wait on.
	var readN atomic.Int64
	var sawBack, readerEnded atomic.Bool
	go func() {
		defer readerEnded.Store(true)
		last, back := 0, false
		for ctx.Err() == nil {
			out, isErr, err := call(reader.Session, "read_query", map[string]any{"query": "SELECT count(*) = coalesce(max(x), 0) AND coalesce(sum(x), 0) = count(*) * (count(*) + 1) / 2 AS ok, count(*) AS n FROM t"})
			var n int
			if _, serr := fmt.Sscanf(out, "ok,n\n1,%d\n", &n); err != nil || isErr || serr != nil {
				errs <- "read: " + out + fmt.Sprint(err)
				rewound <- back
				return
			}
			back = back || n < last
			last = n
			readN.Store(int64(n))
			sawBack.Store(back)
		}
		errs <- ""
		rewound <- back
	}()
	// Both are going once the reader has seen ten rows the writer added
	// after the snapshot; the restore is seen once a read counts fewer rows
	// than the one before it. A reader that stopped on an error ends the
	// wait, and the error is reported below.
	going := func() bool { return readN.Load() >= 13 || readerEnded.Load() }
	require.Eventually(t, going, slack.Of(20*time.Second), 5*time.Millisecond, "the writer and the reader never got going")
	out := runBinary(t, nil, "snapshots", "restore", snap.Snapshots[0].Name, "--db", db, "--over")
	require.Equal(t, 0, out.code, out.stderr)
	seen := func() bool { return sawBack.Load() || readerEnded.Load() }
	assert.Eventually(t, seen, slack.Of(20*time.Second), 5*time.Millisecond, "the reader never saw the restore")
	cancel()
	for range 2 {
		assert.Empty(t, <-errs)
	}
	assert.True(t, <-rewound, "the reader saw the table go back to the snapshot's rows")
	check := mustCall(t, reader.Session, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM t"})
	h, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	defer h.Close()
	var integrity string
	require.NoError(t, h.QueryRow("PRAGMA integrity_check").Scan(&integrity))
	assert.Equal(t, "ok", integrity)
	t.Logf("rows after the restore and the writes that followed it: %s", check)
}
