package tools_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEveryCheckpointIsCoveredAndARemovedSealIsNoticed edits the file as an
// attacker with file access would: verify_chain checks every checkpoint,
// not only the latest; a missing seal on a checkpoint this server wrote is
// a break, even when the seal was the chain's last event; and the resume
// says so in its coverage line and its status line.
func TestEveryCheckpointIsCoveredAndARemovedSealIsNoticed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		setup   func(t *testing.T, call func(tool string, args map[string]any) string)
		stmts   []string
		verify  string // in verify_chain's answer
		resume  []string
		notSays string
	}{
		{"an older summary edited", func(t *testing.T, call func(string, map[string]any) string) {
			call("append_event", map[string]any{"content": "one"})
			call("checkpoint", map[string]any{"summary": "first plan"})
			call("append_event", map[string]any{"content": "two"})
			call("checkpoint", map[string]any{"summary": "second plan"})
		}, []string{"UPDATE memory_checkpoints SET summary = 'forged plan' WHERE id = 1"},
			`"ok": false, "events": 5, "head_id": 5, "head_hash": "`,
			[]string{"second plan\n# sealed in the chain by event 5", "| chain BROKEN: checkpoint 1 does not match its seal (event 3)"}, ""},
		{"the latest summary edited and its seal, the last event, deleted", func(t *testing.T, call func(string, map[string]any) string) {
			call("append_event", map[string]any{"content": "one"})
			call("append_event", map[string]any{"content": "two"})
			call("checkpoint", map[string]any{"summary": "the plan"})
		}, []string{"UPDATE memory_checkpoints SET summary = 'forged plan' WHERE id = 1", "DELETE FROM memory_events WHERE id = (SELECT max(id) FROM memory_events)"},
			`"checkpoints": 1, "sealed": 0, "checkpoint_id": 1, "break_at_id": 0, "reason": "checkpoint 1 has no seal`,
			[]string{"forged plan\n# WARNING: this checkpoint has no seal in the chain", "\n# 0 events since checkpoint | chain BROKEN: checkpoint 1 has no seal"},
			"not sealed (written by the reference"},
		{"the latest checkpoint deleted", func(t *testing.T, call func(string, map[string]any) string) {
			call("append_event", map[string]any{"content": "one"})
			call("checkpoint", map[string]any{"summary": "first plan"})
			call("checkpoint", map[string]any{"summary": "second plan"})
		}, []string{"DROP TRIGGER memory_checkpoints_no_delete", "DELETE FROM memory_checkpoints WHERE id = 2"},
			`"reason": "event 4 seals checkpoint 2, which is not in memory_checkpoints (it was deleted outside the server)"`,
			[]string{"first plan\n# sealed in the chain by event 3", "| chain BROKEN: event 4 seals checkpoint 2"}, ""},
		{"the marker and the seal deleted, the checkpoint left", func(t *testing.T, call func(string, map[string]any) string) {
			call("append_event", map[string]any{"content": "one"})
			call("checkpoint", map[string]any{"summary": "the plan"})
		}, []string{"DELETE FROM memory_events WHERE id >= 2"},
			`"reason": "checkpoint 1 points at event 2, past the chain's last event 1`,
			[]string{"# WARNING: the checkpoint no longer matches the event it points at", "| chain BROKEN: checkpoint 1 points at event 2"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, _ := newMemEnv(t, 0)
			c.setup(t, func(tool string, args map[string]any) string { return env.MustCall(t, tool, args) })
			assert.True(t, strings.HasPrefix(env.MustCall(t, "verify_chain", nil), `{"ok": true,`), "untouched, it verifies")
			memTamper(t, env.DBPath, c.stmts...)
			v := env.MustCall(t, "verify_chain", nil)
			assert.Contains(t, v, `{"ok": false,`)
			assert.Contains(t, v, c.verify)
			out := env.MustCall(t, "get_resume_context", nil)
			for _, s := range c.resume {
				assert.Contains(t, out, s)
			}
			if c.notSays != "" {
				assert.NotContains(t, out, c.notSays)
			}
		})
	}
}
