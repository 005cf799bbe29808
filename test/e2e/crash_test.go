package e2e_test

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkpointAck is checkpoint's success line: checkpoint id, event id.
var checkpointAck = regexp.MustCompile(`^ok: checkpoint (\d+) written at event (\d+)$`)

// acks is what a server acknowledged before it was killed.
type acks struct {
	mu          sync.Mutex
	events      map[int]string // event id -> content
	checkpoints map[int]int    // checkpoint id -> last_event_id
	n           atomic.Int64   // acknowledged events
}

// hammer appends events, with a checkpoint after every 25th, until the
// server stops answering.
func hammer(cs *mcp.ClientSession, round int, a *acks) {
	for i := 0; ; i++ {
		content := fmt.Sprintf("round %d event %d", round, i)
		out, isErr, err := call(cs, "append_event", map[string]any{"content": content})
		if err != nil || isErr {
			return // the server is gone
		}
		if m := eventAck.FindStringSubmatch(out); m != nil {
			id, _ := strconv.Atoi(m[1])
			a.mu.Lock()
			a.events[id] = content
			a.mu.Unlock()
			a.n.Add(1)
		}
		if i%25 == 24 {
			out, isErr, err := call(cs, "checkpoint", map[string]any{"summary": content + " checkpointed"})
			if err != nil || isErr {
				return
			}
			if m := checkpointAck.FindStringSubmatch(out); m != nil {
				id, _ := strconv.Atoi(m[1])
				at, _ := strconv.Atoi(m[2])
				a.mu.Lock()
				a.checkpoints[id] = at
				a.mu.Unlock()
			}
		}
	}
}

// TestKilledServerLosesNothingAcknowledged pins docs/decisions.md#concurrency: events and
// checkpoints acknowledged before a kill -9 are present after a restart, the
// chain verifies and the file passes integrity_check. Two rounds, so the
// second crash lands on a chain that already survived one.
func TestKilledServerLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	a := &acks{events: map[int]string{}, checkpoints: map[int]int{}}
	for round, killAfter := range []int64{300, 600} {
		p := start(t, db)
		done := make(chan struct{})
		go func() {
			hammer(p.Session, round, a)
			close(done)
		}()
		deadline := time.Now().Add(20 * time.Second)
		for a.n.Load() < killAfter && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, p.Cmd.Process.Kill(), "SIGKILL mid-stream")
		select {
		case <-done:
		case <-time.After(callTimeout):
			require.FailNow(t, "the callers did not notice the server died")
		}
		require.GreaterOrEqual(t, a.n.Load(), killAfter, "round %d: too few events acknowledged before the deadline", round)
		t.Logf("round %d: killed after %d acknowledged events, %d checkpoints", round, a.n.Load(), len(a.checkpoints))

		survivor := start(t, db).Session
		chain := verifyChain(t, survivor)
		assert.True(t, chain.OK, "round %d: chain broken at %d: %s", round, chain.BreakAt, chain.Reason)
		ids, stored := storedEvents(t, survivor)
		assertContiguous(t, ids)
		assert.Equal(t, len(ids), chain.Events)
		a.mu.Lock()
		for id, content := range a.events {
			assert.Equal(t, content, stored[id], "round %d: acknowledged event %d", round, id)
		}
		// At most the one call in flight at the kill may have landed
		// unacknowledged; each checkpoint's seal is an event of its own.
		seals := integritySeals(stored)
		assert.LessOrEqual(t, len(ids)-len(a.events)-seals, 1, "round %d: unacknowledged events stored", round)
		cps := csvRows(t, mustCall(t, survivor, "read_query", map[string]any{"query": "SELECT id, last_event_id FROM memory_checkpoints ORDER BY id", "limit": 1000}))
		got := map[int]int{}
		for _, r := range cps {
			id, _ := strconv.Atoi(r[0])
			at, _ := strconv.Atoi(r[1])
			got[id] = at
		}
		for id, at := range a.checkpoints {
			assert.Equal(t, at, got[id], "round %d: acknowledged checkpoint %d", round, id)
			assert.Regexp(t, fmt.Sprintf(`^checkpoint %d sealed: sha256 `, id), stored[at+1], "round %d: checkpoint %d is sealed by the next event", round, id)
		}
		a.mu.Unlock()
		assert.Regexp(t, `^# checkpoint \d+ \| `, mustCall(t, survivor, "get_resume_context", map[string]any{"max_events": 5}))
		require.NoError(t, survivor.Close())
		assert.Equal(t, "ok", integrityCheck(t, db), "round %d", round)
	}
}
