package tools_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"

	// The tamper tests open the file with a raw database/sql connection, as
	// an attacker with file access would, bypassing the server entirely.
	_ "modernc.org/sqlite"
)

func TestTamperingIsReportedWithTheFirstBadID(t *testing.T) {
	t.Parallel()
	const reasonHash = "stored hash does not match the recomputed hash (content or metadata was altered)"
	cases := []struct {
		name   string
		stmts  []string
		events int    // rows left in memory_events
		result string // verify_chain's output after head_hash (event 1's)
		status string // the resume context's status line
	}{
		{"altered content", []string{"UPDATE memory_events SET content = 'forged' WHERE id = 2"}, 3,
			`, "break_at_id": 2, "reason": "` + reasonHash + `"}`, "# 3 events | chain BROKEN at event 2: " + reasonHash},
		{"deleted row", []string{"DELETE FROM memory_events WHERE id = 2"}, 2,
			`, "break_at_id": 3, "reason": "id gap: expected event 2, found 3 (rows were deleted or renumbered)"}`,
			"# 2 events | chain BROKEN at event 3: id gap: expected event 2, found 3 (rows were deleted or renumbered)"},
		{"altered prev_hash", []string{"UPDATE memory_events SET prev_hash = hash WHERE id = 2"}, 3,
			`, "break_at_id": 2, "reason": "prev_hash does not match the hash of event 1"}`,
			"# 3 events | chain BROKEN at event 2: prev_hash does not match the hash of event 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, _ := newMemEnv(t, 0)
			memAppendNotes(t, env, "event", 3)
			e1 := memEvent(t, domain.Event{}, "2026-09-13T10:11:12Z", "note", "event 1")
			assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "| chain ok (3 events)")

			memTamper(t, env.DBPath, c.stmts...)
			assert.Equal(t, `{"ok": false, "events": `+strconv.Itoa(c.events)+`, "head_id": 1, "head_hash": "`+e1.Hash+`"`+c.result, env.MustCall(t, "verify_chain", nil))
			out := env.MustCall(t, "get_resume_context", nil)
			assert.Contains(t, out, "\n"+c.status+"\n", "resume verifies the whole chain on every call")
		})
	}
}

func TestResumeWarnsWhenTheCheckpointNoLongerMatches(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	memAppendNotes(t, env, "event", 2)
	env.MustCall(t, "checkpoint", map[string]any{"summary": "two in"})
	const warning = "# WARNING: the checkpoint no longer matches the event it points at"
	assert.NotContains(t, env.MustCall(t, "get_resume_context", nil), warning)

	memTamper(t, env.DBPath, "UPDATE memory_checkpoints SET head_hash = '"+domain.Genesis+"' WHERE id = 1")
	out := env.MustCall(t, "get_resume_context", nil)
	assert.True(t, strings.HasPrefix(out, "# checkpoint 1 | 2026-09-13T10:11:12Z | session "+memSession+" | at event 3\n"+warning+"\ntwo in\n"+
		"# WARNING: this checkpoint does not match its seal in the chain"), out)
	assert.True(t, strings.HasSuffix(out, "\n# 0 events since checkpoint | chain BROKEN: checkpoint 1 points at event 3, which no longer has the hash it recorded "+
		"(the checkpoint or the chain was changed outside the server)"),
		"the seal that no longer matches is still the checkpoint's, not an event since: %s", out)
}

func TestTheAgentCannotRewriteMemory(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	memAppendNotes(t, env, "event", 3)
	env.MustCall(t, "checkpoint", map[string]any{"summary": "three in"})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
	dump := func() string {
		return env.MustCall(t, "read_query", map[string]any{"query": "SELECT * FROM memory_events ORDER BY id"}) +
			env.MustCall(t, "read_query", map[string]any{"query": "SELECT * FROM memory_checkpoints ORDER BY id"}) +
			env.MustCall(t, "verify_chain", nil)
	}
	before := dump()
	attacks := []string{
		"UPDATE memory_events SET content = 'forged' WHERE id = 2",
		"WITH x AS (SELECT 1) UPDATE memory_events SET content = 'forged'",
		"DELETE FROM memory_events WHERE id = 3",
		"INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (4, 't', 's', 'note', 'forged', 'p', 'h')",
		"REPLACE INTO memory_events (id, ts, session, kind, content, prev_hash, hash) SELECT id, ts, session, kind, 'forged', prev_hash, hash FROM memory_events WHERE id = 1",
		"INSERT INTO main.\"MEMORY_EVENTS\" (id, ts, session, kind, content, prev_hash, hash) VALUES (4, 't', 's', 'note', 'x', 'p', 'h2')",
		"UPDATE memory_checkpoints SET head_hash = 'x'",
		"DROP TRIGGER memory_events_no_update",
		"DROP TRIGGER memory_checkpoints_no_delete",
		"DROP TABLE memory_events",
		"ALTER TABLE memory_events RENAME TO old_events",
		"ALTER TABLE memory_events ADD COLUMN forged TEXT",
		"CREATE TRIGGER forge AFTER INSERT ON memory_events BEGIN SELECT 1; END",
		"PRAGMA writable_schema = 1",
	}
	for _, q := range attacks {
		_, isErr := env.Call(t, "write_query", map[string]any{"query": q})
		assert.True(t, isErr, "write_query ran: %s", q)
		_, isErr = env.Call(t, "destructive_query", map[string]any{"query": q, "reason": "test"})
		assert.True(t, isErr, "destructive_query ran: %s", q)
	}
	assert.Equal(t, "ok,error\n"+strings.Repeat("0,memory_events is managed by the server and is append-only; it cannot be changed through SQL tools\n", 2)+"# 2 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT ok, error FROM query_log WHERE tool IN ('write_query', 'destructive_query') AND id > 5 ORDER BY id LIMIT 2"}), // rows 1-5 are the setup's
		"refused by the policy, not by an argument error")
	// A trigger on the agent's own table whose body edits memory: refused
	// when created or when it fires, never run.
	env.Call(t, "destructive_query", map[string]any{"query": "CREATE TRIGGER sneaky AFTER INSERT ON notes BEGIN DELETE FROM memory_events; UPDATE memory_checkpoints SET summary = 'x'; END", "reason": "test"})
	_, isErr := env.Call(t, "write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('fire')"})
	assert.True(t, isErr, "the trigger's DELETE on memory_events is refused when it fires")
	assert.Equal(t, before, dump())
}

// TestConcurrentAppendsFromFourServersFormOneChain runs four servers on one
// file, as four agent sessions would (docs/decisions.md#concurrency), each with one client that
// appends as fast as it can.
func TestConcurrentAppendsFromFourServersFormOneChain(t *testing.T) {
	t.Parallel()
	first, _ := newMemEnv(t, 0)
	envs := []*harness.Env{first}
	for range 3 {
		envs = append(envs, harness.New(t, harness.Config{DBPath: first.DBPath}))
	}
	const each = 15
	errs := make(chan string, len(envs)*each)
	var wg sync.WaitGroup
	for c, env := range envs {
		wg.Go(func() {
			for i := range each {
				res, err := env.Client.CallTool(context.Background(), &mcp.CallToolParams{Name: "append_event",
					Arguments: map[string]any{"content": fmt.Sprintf("client %d event %d", c, i)}})
				switch {
				case err != nil:
					errs <- err.Error()
				case res.IsError:
					errs <- fmt.Sprint(res.Content)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	n := len(envs) * each
	out := first.MustCall(t, "verify_chain", nil)
	assert.True(t, strings.HasPrefix(out, fmt.Sprintf(`{"ok": true, "events": %d, "head_id": %d,`, n, n)), out)
	for _, env := range envs[1:] {
		assert.Equal(t, out, env.MustCall(t, "verify_chain", nil))
	}
}
