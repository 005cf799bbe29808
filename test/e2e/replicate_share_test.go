package e2e_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// replHolders returns the processes whose log says they replicate.
func replHolders(ps []*e2e.Process) []*e2e.Process {
	var out []*e2e.Process
	for _, p := range ps {
		if strings.Contains(p.Stderr.String(), replLine) {
			out = append(out, p)
		}
	}
	return out
}

// replDecided reports whether every server has said whether it replicates.
func replDecided(ps []*e2e.Process) bool {
	for _, p := range ps {
		if s := p.Stderr.String(); !strings.Contains(s, replLine) && !strings.Contains(s, replWaitLine) {
			return false
		}
	}
	return true
}

// replSettle is longer than a lock poll (1 s): a second replicator, were
// the lock not exclusive, would have taken over within it. It only gives a
// wrong hand-over the time to show itself: a right one passes however slow
// the machine, and no poll is visible to wait for instead.
const replSettle = 1500 * time.Millisecond

// TestReplicateOneReplicatorHandsOver: three servers on one file, all with
// --replicate. Exactly one replicates, the others say so; killing it with
// SIGKILL hands over to exactly one of the others, and what any of them
// writes reaches the replica.
func TestReplicateOneReplicatorHandsOver(t *testing.T) {
	t.Parallel()
	db, replica := newDB(t), replFileURL(filepath.Join(t.TempDir(), "replica"))
	var ps []*e2e.Process
	for range 3 {
		ps = append(ps, replStart(t, db, replica))
	}
	// Each server says whether it replicates once it has tried the lock:
	// wait for that (an event), then count.
	require.Eventually(t, func() bool { return replDecided(ps) }, slack.Of(10*time.Second), 20*time.Millisecond,
		"every server says whether it replicates")
	holders := replHolders(ps)
	require.Len(t, holders, 1, "exactly one of three replicates")
	first := holders[0]
	var rest []*e2e.Process
	for _, p := range ps {
		if p != first {
			assert.Contains(t, p.Stderr.String(), replWaitLine, "a server that does not replicate says so")
			rest = append(rest, p)
		}
	}
	early := replAppend(t, rest[0].Session, "written by a server that does not replicate")

	replKill(t, first)
	require.Eventually(t, func() bool { return len(replHolders(rest)) == 1 }, slack.Of(10*time.Second), 20*time.Millisecond,
		"one of the others takes over")
	time.Sleep(replSettle)
	holders = replHolders(rest)
	require.Len(t, holders, 1, "still exactly one")
	assert.Contains(t, holders[0].Stderr.String(), "took_over=true")

	var late []int
	for i, p := range rest {
		late = append(late, replAppend(t, p.Session, fmt.Sprintf("after the hand-over, by server %d", i)))
	}
	// They reach the replica within a few sync intervals: restore until
	// every one is there, or the deadline passes and the checks below say
	// which is missing.
	var ids map[int]bool
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(replInterval) {
		ids = replEventIDs(t, replMustRestore(t, replica, time.Time{}))
		all := ids[early]
		for _, id := range late {
			all = all && ids[id]
		}
		if all || time.Now().After(deadline) {
			break
		}
	}
	assert.True(t, ids[early], "the event written before the kill")
	for _, id := range late {
		assert.True(t, ids[id], "event %d written after the hand-over", id)
	}
}

// TestReplicateS3: the same kill and restore against an in-process S3
// (gofakes3 on 127.0.0.1), credentials and endpoint set the way Litestream
// reads them.
func TestReplicateS3(t *testing.T) {
	t.Parallel()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("replicas"))
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	replica := "s3://replicas/team/mem.db?region=us-east-1&endpoint=" + url.QueryEscape(srv.URL)
	env := []string{"AWS_ACCESS_KEY_ID=e2e", "AWS_SECRET_ACCESS_KEY=e2e-secret"}

	p := replStart(t, newDB(t), replica, env...)
	require.Contains(t, p.Stderr.String(), replLine)
	assert.NotContains(t, p.Stderr.String(), "endpoint=", "the URL's parameters are not logged")
	mustCall(t, p.Session, "write_query", map[string]any{"query": "CREATE TABLE notes (body TEXT)"})
	mustCall(t, p.Session, "write_query", map[string]any{"query": "INSERT INTO notes VALUES ('kept in S3')"})
	acked := map[int]time.Time{}
	for i := range 20 {
		acked[replAppend(t, p.Session, fmt.Sprintf("s3 event %d", i))] = time.Now()
		time.Sleep(25 * time.Millisecond)
	}
	// The contract covers events acknowledged more than two sync intervals
	// before the kill: after three, every event above is covered.
	time.Sleep(slack.Of(3 * replInterval))
	killedAt := time.Now()
	replKill(t, p)

	restored := replMustRestore(t, replica, time.Time{}, env...)
	ids := replEventIDs(t, restored)
	covered := slack.Of(2 * replInterval) // two sync intervals, at this machine's load
	for id, at := range acked {
		if killedAt.Sub(at) > covered {
			assert.True(t, ids[id], "event %d, acknowledged %s before the kill", id, killedAt.Sub(at))
		}
	}
	assert.Equal(t, 1, replCount(t, restored, "notes"))
	replVerifyWithBinary(t, restored)
}

// TestReplicateGracefulExitSyncsLast: a server that exits because its client
// went away syncs once more after closing its own connections, so the
// replica holds the last events and the audit rows of the last calls, with
// no wait for a sync interval.
func TestReplicateGracefulExitSyncsLast(t *testing.T) {
	t.Parallel()
	db, replica := newDB(t), replFileURL(filepath.Join(t.TempDir(), "replica"))
	cmd := replCommand(nil, "--db", db, "--replicate", replica, "--replicate-sync-interval", "1h")
	p := e2e.Start(t, cmd)
	var ids []int
	for i := range 3 {
		ids = append(ids, replAppend(t, p.Session, fmt.Sprintf("last words %d", i)))
	}
	require.NoError(t, p.Session.Close(), "the server exits when stdin closes")
	assert.Contains(t, p.Stderr.String(), "replica up to date")

	restored := replMustRestore(t, replica, time.Time{})
	got := replEventIDs(t, restored)
	for _, id := range ids {
		assert.True(t, got[id], "event %d", id)
	}
	assert.GreaterOrEqual(t, replCount(t, restored, "query_log"), 3, "the audit rows of the calls")
}
