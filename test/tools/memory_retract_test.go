package tools_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// A retracted event leaves the resume (both ways of counting it), the
// search and its resource, which say so; the chain keeps it and still
// verifies, retraction included.
func TestRetractedEventsLeaveTheMemoryTools(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	env.MustCall(t, "append_event", map[string]any{"content": "the deploy key is in vault"})
	env.MustCall(t, "checkpoint", map[string]any{"summary": "deploying"})                       // marker 2, seal 3
	env.MustCall(t, "append_event", map[string]any{"content": "the deploy key is in the repo"}) // 4
	env.MustCall(t, "append_event", map[string]any{"content": "deploy done", "kind": "result"}) // 5
	assert.Equal(t, "ok: event 4 retracted by event 6; it stays in the chain",
		env.MustCall(t, "retract_event", map[string]any{"id": 4, "reason": "wrong: it never was in the repo"}))

	for _, args := range []map[string]any{nil, {"exclude_kinds": "debug"}} {
		out := env.MustCall(t, "get_resume_context", args)
		assert.Contains(t, out, "\n# 1 events since checkpoint, 1 retracted left out | chain ok (6 events", args)
		assert.Contains(t, out, "5,2026-09-13T10:11:12Z,result,deploy done", args)
		assert.NotContains(t, out, "in the repo", args)
	}
	out := env.MustCall(t, "search_memory", map[string]any{"query": "deploy key"})
	assert.Contains(t, out, "in vault")
	assert.NotContains(t, out, "the repo")
	assert.Contains(t, out, "\n# 1 retracted left out (retract_event withdrew them)")

	res := readResource(t, env, "memory://events/4")
	assert.Contains(t, res, "# retracted by event 6: wrong: it never was in the repo")
	assert.NotContains(t, res, "is in the repo")

	assert.Contains(t, env.MustCall(t, "verify_chain", nil), `{"ok": true, "events": 6, "head_id": 6,`)
	assert.Equal(t, "event_id,retraction_id,reason\n4,6,wrong: it never was in the repo\n# 1 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT * FROM memory_retractions"}))
	assert.Equal(t, "kind,content\nretraction,retracts event 4: wrong: it never was in the repo\n# 1 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT kind, content FROM memory_events WHERE id = 6"}))
}

func TestRetractEventRefusesWhatItCannotRetract(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	env.MustCall(t, "append_event", map[string]any{"content": "one"})
	env.MustCall(t, "checkpoint", map[string]any{"summary": "s"}) // marker 2, seal 3
	env.MustCall(t, "retract_event", map[string]any{"id": 1, "reason": "wrong"})
	for _, tc := range []struct {
		args map[string]any
		says string
	}{
		{map[string]any{"id": 99, "reason": "x"}, "there is no event 99; search_memory or get_resume_context shows the ids"},
		{map[string]any{"id": 1, "reason": " "}, "reason must not be blank"},
		{map[string]any{"id": 2, "reason": "x"}, "seal or marker, which cannot be retracted"},
		{map[string]any{"id": 3, "reason": "x"}, "seal or marker, which cannot be retracted"},
		{map[string]any{"id": 4, "reason": "x"}, "is a retraction, which cannot be retracted"},
		{map[string]any{"id": 1}, "reason"},
	} {
		assert.Contains(t, env.MustFail(t, "retract_event", tc.args), tc.says, tc.args)
	}
	assert.Equal(t, "ok: event 1 was already retracted by event 4 (wrong); nothing appended",
		env.MustCall(t, "retract_event", map[string]any{"id": 1, "reason": "again"}))
	assert.Contains(t, env.MustFail(t, "append_event", map[string]any{"content": "retracts event 1: forged", "kind": "retraction"}),
		"written only by the retract_event tool")
	assert.Equal(t, "count(*)\n4\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) FROM memory_events"}), "nothing appended")
}

// The side tables are server tables: agent SQL may read them, never
// write them, and cannot forge a retraction into the chain either.
func TestTheAgentCannotForgeOrUndoARetraction(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	env.MustCall(t, "append_event", map[string]any{"content": "keep me"})
	env.MustCall(t, "append_event", map[string]any{"content": "wrong"})
	env.MustCall(t, "retract_event", map[string]any{"id": 2, "reason": "wrong"})
	for _, q := range []string{
		"INSERT INTO memory_retractions VALUES (1, 3, 'forged')",
		"INSERT INTO memory_retractions SELECT 1, 99, 'forged'",
		"UPDATE memory_retractions SET event_id = 1",
		"INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (4, 't', 's', 'retraction', 'retracts event 1: x', 'p', 'h')",
		"INSERT INTO memory_provenance VALUES (1, 'cli', '', '', '', 'forged')",
		"UPDATE memory_provenance SET client = 'someone else'",
		"CREATE TRIGGER forge AFTER INSERT ON memory_events BEGIN INSERT INTO memory_retractions VALUES (NEW.id, NEW.id, 'x'); END",
	} {
		env.MustFail(t, "write_query", map[string]any{"query": q})
	}
	for _, q := range []string{
		"DELETE FROM memory_retractions",
		"DROP TABLE memory_retractions",
		"DELETE FROM memory_provenance",
		"DROP TABLE memory_provenance",
		"ALTER TABLE memory_retractions RENAME TO old",
	} {
		env.MustFail(t, "destructive_query", map[string]any{"query": q, "reason": "attack"})
	}
	assert.Equal(t, "event_id,retraction_id\n2,3\n# 1 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT event_id, retraction_id FROM memory_retractions"}))
	out := env.MustCall(t, "get_resume_context", nil)
	assert.Contains(t, out, "keep me")
	assert.Contains(t, out, "1 retracted left out")
}

// Each event records where it came from, beside the chain: the chain's
// hashes are the reference's rule over the same six fields as before.
func TestEventsRecordTheirProvenance(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	env.MustCall(t, "append_event", map[string]any{"content": "from the agent"})
	env.MustCall(t, "retract_event", map[string]any{"id": 1, "reason": "changed my mind"})
	assert.Equal(t, "event_id,transport,client,client_version,http_session,command\n1,stdio,harness,test,,\n2,stdio,harness,test,,\n# 2 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT * FROM memory_provenance ORDER BY event_id"}))
	e1 := memEvent(t, domain.Event{}, "2026-09-13T10:11:12Z", "note", "from the agent")
	assert.Contains(t, env.MustCall(t, "read_query", map[string]any{"query": "SELECT hash FROM memory_events WHERE id = 1"}), e1.Hash,
		"the hash is the reference's, provenance or not")
	assert.Contains(t, env.MustCall(t, "verify_chain", nil), `"ok": true`)

	// A second server on the file, without a call context saying more,
	// reads it as it is.
	again := harness.New(t, harness.Config{DBPath: env.DBPath})
	assert.Contains(t, again.MustCall(t, "verify_chain", nil), `"ok": true, "events": 2`)
}
