package e2e_test

import (
	"bytes"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// replInterval is the sync interval the replication tests run with: short,
// so that "more than two sync intervals before the kill" is a short wait.
const replInterval = 150 * time.Millisecond

// replLine is what the replicating process logs once it holds the lock;
// replWaitLine is what the others log.
const (
	replLine     = "replicating with Litestream"
	replWaitLine = "another process replicates this database"
)

// replFileURL is the file:// replica URL of a folder.
func replFileURL(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// replCommand is e2e.Command without AWS_CA_BUNDLE (which Litestream's S3
// client refuses, and which some machines set) and with env added.
func replCommand(env []string, args ...string) *exec.Cmd {
	cmd := e2e.Command(bin, args...)
	kept := cmd.Env[:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "AWS_CA_BUNDLE=") {
			kept = append(kept, kv)
		}
	}
	cmd.Env = append(kept, env...)
	return cmd
}

// replStart runs a server on db that replicates to replica, with env added
// to its environment, and waits until it says whether it replicates.
func replStart(t *testing.T, db, replica string, env ...string) *e2e.Process {
	t.Helper()
	cmd := replCommand(env, "--db", db, "--replicate", replica, "--replicate-sync-interval", replInterval.String())
	p := e2e.Start(t, cmd)
	replWaitFor(t, p, 10*time.Second, func(s string) bool {
		return strings.Contains(s, replLine) || strings.Contains(s, replWaitLine)
	})
	return p
}

// replWaitFor polls p's stderr until ok says yes, failing the test after limit.
func replWaitFor(t *testing.T, p *e2e.Process, limit time.Duration, ok func(stderr string) bool) {
	t.Helper()
	require.Eventually(t, func() bool { return ok(p.Stderr.String()) }, slack.Of(limit), 20*time.Millisecond,
		"server stderr:\n%s", p.Stderr)
}

// replAppend appends one event and returns its id.
func replAppend(t *testing.T, cs *mcp.ClientSession, content string) int {
	t.Helper()
	out := mustCall(t, cs, "append_event", map[string]any{"content": content})
	m := eventAck.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	id, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return id
}

// replRestore runs the restore subcommand and returns its stdout, stderr and
// exit error.
func replRestore(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := replCommand(env, append([]string{"restore"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// replMustRestore restores from replica into a new file (at a point in time
// when at is not zero) and checks that the command verified it.
func replMustRestore(t *testing.T, replica string, at time.Time, env ...string) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "restored", "mem.db")
	args := []string{"--from", replica, "--to", dest}
	if !at.IsZero() {
		args = append(args, "--at", at.UTC().Format(time.RFC3339Nano))
	}
	out, errOut, err := replRestore(t, env, args...)
	require.NoError(t, err, "restore failed; stdout %q, stderr:\n%s", out, errOut)
	assert.Contains(t, out, "integrity_check ok")
	assert.Contains(t, out, "verify_chain ok")
	assert.Equal(t, "ok", integrityCheck(t, dest), "checked again, independently of the server")
	return dest
}

// replEventIDs returns the ids of the events in the file at path.
func replEventIDs(t *testing.T, path string) map[int]bool {
	t.Helper()
	rows, err := openRO(t, path).Query("SELECT id FROM memory_events")
	require.NoError(t, err)
	defer rows.Close()
	ids := map[int]bool{}
	for rows.Next() {
		var id int
		require.NoError(t, rows.Scan(&id))
		ids[id] = true
	}
	require.NoError(t, rows.Err())
	return ids
}

// replHasAll reports whether ids holds every one of want.
func replHasAll(ids map[int]bool, want []int) bool {
	for _, id := range want {
		if !ids[id] {
			return false
		}
	}
	return true
}

// replCount returns the number of rows of table in the file at path.
func replCount(t *testing.T, path, table string) int {
	t.Helper()
	var n int
	require.NoError(t, openRO(t, path).QueryRow("SELECT count(*) FROM "+table).Scan(&n))
	return n
}

// replVerifyWithBinary runs verify_chain through a read-only server on the
// restored file, as an agent would.
func replVerifyWithBinary(t *testing.T, path string) {
	t.Helper()
	p := start(t, path, "--read-only")
	out := mustCall(t, p.Session, "verify_chain", nil)
	assert.Contains(t, out, `"ok": true`)
}

// replKill kills p with SIGKILL and waits for it to be gone.
func replKill(t *testing.T, p *e2e.Process) {
	t.Helper()
	require.NoError(t, p.Cmd.Process.Kill(), "SIGKILL")
	_ = p.Session.Close()
}

// TestReplicateFileKillRestore: a server streams to a file replica while it
// writes rows, appends events and runs a destructive_query; it is killed
// with SIGKILL mid-stream. The latest restore verifies and holds every event
// acknowledged more than two sync intervals before the kill; a restore to an
// instant between two batches holds the first batch and none of the second,
// which is also the state just before the destructive_query.
func TestReplicateFileKillRestore(t *testing.T) {
	t.Parallel()
	db, replica := newDB(t), replFileURL(filepath.Join(t.TempDir(), "replica"))
	p := replStart(t, db, replica)
	require.Contains(t, p.Stderr.String(), replLine, "a lone server replicates")
	cs := p.Session

	// Batch A: a table with rows, and events.
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('a'), ('b'), ('c')"})
	var batchA []int
	for i := range 5 {
		batchA = append(batchA, replAppend(t, cs, fmt.Sprintf("batch A %d", i)))
	}
	// Litestream's own tables: readable, never changeable by the agent (its
	// connection runs no policy, so a trigger there would run unchecked).
	require.Eventually(t, func() bool { // Litestream creates them on its first sync
		_, isErr, err := call(cs, "read_query", map[string]any{"query": "SELECT count(*) FROM _litestream_seq"})
		return err == nil && !isErr
	}, slack.Of(5*time.Second), 20*time.Millisecond)
	for _, q := range []string{"DROP TABLE _litestream_seq", "CREATE TRIGGER sabotage AFTER UPDATE ON _litestream_seq BEGIN SELECT RAISE(ABORT, 'no'); END"} {
		assert.Contains(t, mustFail(t, cs, "destructive_query", map[string]any{"query": q, "reason": "attack"}), "belongs to Litestream")
	}
	// The cut comes once batch A is in the replica (an event: a restore
	// holds it, however long the sync took on a busy machine); the second
	// after it is not a wait for anything but a margin that puts batch B's
	// sync well after the cut, and --at chooses by the time of a sync.
	for deadline := time.Now().Add(slack.Of(10 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
		ids := replEventIDs(t, replMustRestore(t, replica, time.Time{}))
		if replHasAll(ids, batchA) {
			break
		}
		require.True(t, time.Now().Before(deadline), "batch A never reached the replica")
	}
	cut := time.Now()
	time.Sleep(time.Second)

	// Batch B: the rows deleted, more events.
	mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "replication test"})
	var batchB []int
	for i := range 5 {
		batchB = append(batchB, replAppend(t, cs, fmt.Sprintf("batch B %d", i)))
	}

	// A stream of events until the kill, each with its acknowledgement time.
	acked := map[int]time.Time{}
	for i := 0; i < 40; i++ {
		acked[replAppend(t, cs, fmt.Sprintf("stream %d", i))] = time.Now()
		time.Sleep(25 * time.Millisecond)
	}
	killedAt := time.Now()
	replKill(t, p)

	latest := replMustRestore(t, replica, time.Time{})
	ids := replEventIDs(t, latest)
	for _, id := range append(batchA, batchB...) {
		assert.True(t, ids[id], "event %d of the batches is in the replica", id)
	}
	missing := 0
	covered := slack.Of(2 * replInterval) // two sync intervals, at this machine's load
	for id, at := range acked {
		if killedAt.Sub(at) > covered {
			assert.True(t, ids[id], "event %d, acknowledged %s before the kill, is in the replica", id, killedAt.Sub(at))
		} else if !ids[id] {
			missing++
		}
	}
	t.Logf("events acknowledged within two sync intervals of the kill and not replicated: %d", missing)
	assert.Equal(t, 0, replCount(t, latest, "notes"), "the latest state has the DELETE")
	replVerifyWithBinary(t, latest)

	before := replMustRestore(t, replica, cut)
	ids = replEventIDs(t, before)
	for _, id := range batchA {
		assert.True(t, ids[id], "event %d of batch A is in the state at the cut", id)
	}
	for _, id := range batchB {
		assert.False(t, ids[id], "event %d of batch B is not in the state at the cut", id)
	}
	assert.Equal(t, 3, replCount(t, before, "notes"), "the state before the destructive_query has its rows")
	replVerifyWithBinary(t, before)

	// The workflow the README gives: restore to the time the audit log
	// recorded for the destructive_query (second resolution, taken before
	// its change committed) and get the rows back.
	var ts string
	require.NoError(t, openRO(t, db).QueryRow("SELECT ts FROM query_log WHERE tool = 'destructive_query' AND ok = 1").Scan(&ts))
	at, err := time.Parse(time.RFC3339, ts)
	require.NoError(t, err)
	assert.Equal(t, 3, replCount(t, replMustRestore(t, replica, at), "notes"), "restored to just before the destructive_query at %s", ts)

	// Nothing is ever overwritten.
	var out, errOut string
	out, errOut, err = replRestore(t, nil, "--from", replica, "--to", latest)
	require.Error(t, err, "stdout %q", out)
	assert.Contains(t, errOut, "already exists")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one line: %q", errOut)
}

// TestReplicateRefusals: --read-only with --replicate, a malformed URL and
// an unsupported scheme are one line each and exit status 2.
func TestReplicateRefusals(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	for _, args := range [][]string{
		{"--db", db, "--read-only", "--replicate", "file:///tmp/x"},
		{"--db", db, "--replicate", "file://relative"},
		{"--db", db, "--replicate", "gopher://host/x"},
		{"--db", db, "--replicate", "file:///tmp/x", "--replicate-sync-interval", "soon"},
		{"restore", "--from", "file:///tmp/x"},
		{"--db", db, "--replicate", "s3://bucket/x"}, // with AWS_CA_BUNDLE, below
	} {
		cmd := replCommand([]string{"AWS_CA_BUNDLE=/etc/ssl/private-ca.pem"}, args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v", args)
		assert.Equal(t, 2, ee.ExitCode(), "%v: %s", args, errOut.String())
		assert.Empty(t, out.String(), "%v", args)
		assert.Equal(t, 1, strings.Count(errOut.String(), "\n"), "%v: one line: %q", args, errOut.String())
	}
}
