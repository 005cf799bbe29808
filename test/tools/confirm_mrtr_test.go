package tools_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// On the 2026-07-28 revision the question travels as an input request of
// the call's result and the SDK client's retry brings the answer.
func TestConfirmOverMultiRoundTrip(t *testing.T) {
	a := &asker{answer: func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }}
	env, _ := confirmEnvAt(t, harness.Config{}, a, "", nil)
	assert.Contains(t, env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "start over"}), "the person declined")
	require.Len(t, a.asked(), 1)
	assert.Contains(t, a.asked()[0], "- table 'notes': 3 rows deleted")
	assert.Equal(t, "n\n3\n# 1 rows", countNotes(t, env))

	a.answer = accept(map[string]any{"run": true})
	out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "one"})
	assert.Contains(t, out, "ok: 1 rows affected; approved by the person (client elicitation)")
	assert.Equal(t, "n\n2\n# 1 rows", countNotes(t, env))
	assert.Contains(t, lastConfirm(t, env), `""outcome"": ""approved""`)
}

// An answer counts only for the question it was given to, and only once:
// a forged state, an answer to another statement and a replayed answer
// each get a new question, and nothing runs.
func TestConfirmInputResponsesCannotBeForgedOrReplayed(t *testing.T) {
	env, cs := confirmEnvAt(t, harness.Config{}, &asker{answer: accept(map[string]any{"run": true})}, "", &mcp.MultiRoundTripOptions{Disabled: true})
	callWith := func(query, state string, answer *mcp.ElicitResult) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: "destructive_query", Arguments: map[string]any{"query": query, "reason": "r"}, RequestState: state}
		if answer != nil {
			p.InputResponses = mcp.InputResponseMap{"confirm": answer}
		}
		res, err := cs.CallTool(context.Background(), p)
		require.NoError(t, err)
		return res
	}
	yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"run": true}}
	first := callWith("DELETE FROM notes WHERE id = 1", "", nil)
	require.True(t, first.NeedsInput(), "the first round asks")
	require.Contains(t, first.InputRequests, "confirm")
	assert.Contains(t, first.InputRequests["confirm"].(*mcp.ElicitParams).Message, "- table 'notes': 1 row deleted")

	assert.True(t, callWith("DELETE FROM notes WHERE id = 1", "1.deadbeef", yes).NeedsInput(), "a forged state")
	assert.True(t, callWith("DELETE FROM notes", first.RequestState, yes).NeedsInput(), "another statement's state")
	assert.Equal(t, "n\n3\n# 1 rows", countNotes(t, env))

	second := callWith("DELETE FROM notes WHERE id = 1", "", nil)
	done := callWith("DELETE FROM notes WHERE id = 1", second.RequestState, yes)
	require.False(t, done.NeedsInput())
	assert.False(t, done.IsError)
	assert.Equal(t, "n\n2\n# 1 rows", countNotes(t, env))
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO notes (id, title) VALUES (1, 'alpha')"})
	assert.True(t, callWith("DELETE FROM notes WHERE id = 1", second.RequestState, yes).NeedsInput(), "a replayed answer")
	assert.Equal(t, "n\n3\n# 1 rows", countNotes(t, env))
}
