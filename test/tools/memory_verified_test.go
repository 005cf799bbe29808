package tools_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The resume context remembers the chain it verified and checks only what
// this server appended since (app/verified.go, adapters/sqlite/verified.go);
// these tests tamper between resumes and expect the break every time.

func TestResumeAfterAppendsStillCatchesAnOldEventEdited(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	memAppendNotes(t, env, "event", 3)
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "| chain ok (3 events)")
	for _, n := range []string{"4", "5"} {
		env.MustCall(t, "append_event", map[string]any{"content": "more " + n})
		assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "| chain ok ("+n+" events)",
			"the events appended since the last resume are counted")
	}
	env.MustCall(t, "checkpoint", map[string]any{"summary": "five in"})
	env.MustCall(t, "append_event", map[string]any{"content": "after"})
	out := env.MustCall(t, "get_resume_context", nil)
	assert.Contains(t, out, "# 1 events since checkpoint | chain ok (8 events)", "the count since the checkpoint is the stored one")
	env.MustCall(t, "append_event", map[string]any{"content": "one more", "kind": "noise"})
	assert.Contains(t, env.MustCall(t, "get_resume_context", map[string]any{"exclude_kinds": "noise"}),
		"# 1 events since checkpoint | chain ok (9 events)", "excluded kinds are not counted")
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "# 2 events since checkpoint | chain ok (9 events)")

	memTamper(t, env.DBPath, "UPDATE memory_events SET content = 'forged' WHERE id = 2",
		"CREATE TRIGGER memory_events_no_update BEFORE UPDATE ON memory_events BEGIN SELECT RAISE(ABORT, 'append-only'); END")
	out = env.MustCall(t, "get_resume_context", nil)
	assert.Contains(t, out, "chain BROKEN at event 2: stored hash does not match the recomputed hash",
		"an edit by another program, even one that puts the trigger back, is a commit this server did not make: the whole chain is walked")
	env.MustCall(t, "append_event", map[string]any{"content": "after the edit"})
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "chain BROKEN at event 2",
		"a broken chain is never remembered as verified")
}

func TestResumeAfterAWriteOfTheAgentWalksTheWholeChain(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	memAppendNotes(t, env, "event", 2)
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "| chain ok (2 events)")
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE notes (x)"})
	memTamper(t, env.DBPath, "DELETE FROM memory_events WHERE id = 1")
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "chain BROKEN at event 2: id gap")
}

func TestConcurrentResumesAndAppendsStillCatchAnEdit(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	memAppendNotes(t, env, "event", 2)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5 {
				env.MustCall(t, "append_event", map[string]any{"content": fmt.Sprintf("g%d e%d", g, i)})
				assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "| chain ok (")
			}
		})
	}
	wg.Wait()
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "| chain ok (22 events)")
	memTamper(t, env.DBPath, "UPDATE memory_events SET kind = 'forged' WHERE id = 1")
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "chain BROKEN at event 1: stored hash does not match")
}
