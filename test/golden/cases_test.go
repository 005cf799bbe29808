package golden_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// goldenCase is one call whose answer is pinned in
// testdata/<tool>_<name>.golden.
type goldenCase struct {
	tool, name string
	args       map[string]any
	// refused: the call must answer a tool error (a refusal's text is
	// what the agent acts on next).
	refused bool
	// limits replaces the default limits (to reach a cap with a small
	// fixture).
	limits domain.Limits
	// before runs first, on the same server and clock.
	before func(t *testing.T, env *harness.Env, clock *fake.Clock)
}

// remember writes a short history: two events a minute apart, a
// checkpoint, then one more event.
func remember(t *testing.T, env *harness.Env, clock *fake.Clock) {
	t.Helper()
	for _, e := range []struct{ kind, content string }{
		{"decision", "Prices are stored as REAL in euros; the migration to cents is postponed."},
		{"note", "item-07 has no tags on purpose: it is the migration's test row."},
		{"checkpoint", "Schema reviewed; next: the rollback plan for the price migration."},
		{"todo", "Write the rollback script for the price migration before Friday."},
	} {
		clock.Advance(time.Minute)
		if e.kind == "checkpoint" {
			env.MustCall(t, domain.ToolCheckpoint, map[string]any{"summary": e.content})
			continue
		}
		env.MustCall(t, domain.ToolAppendEvent, map[string]any{"kind": e.kind, "content": e.content})
	}
}

// rememberRetracted is remember's history with its last event (the todo,
// event 5) retracted.
func rememberRetracted(t *testing.T, env *harness.Env, clock *fake.Clock) {
	t.Helper()
	remember(t, env, clock)
	clock.Advance(time.Minute)
	env.MustCall(t, domain.ToolRetractEvent, map[string]any{"id": 5, "reason": "The rollback script is not needed: the migration was cancelled."})
}

// rememberMore adds, after remember's history, more events than
// get_resume_context's smallest max_bytes holds.
func rememberMore(t *testing.T, env *harness.Env, clock *fake.Clock) {
	t.Helper()
	remember(t, env, clock)
	for i := range 20 {
		clock.Advance(time.Minute)
		env.MustCall(t, domain.ToolAppendEvent, map[string]any{"kind": "result",
			"content": fmt.Sprintf("Checked batch %02d of the price migration: every row converts to cents without loss.", i+1)})
	}
}

// rememberSecret appends an event whose content holds a token.
func rememberSecret(t *testing.T, env *harness.Env, clock *fake.Clock) {
	t.Helper()
	clock.Advance(time.Minute)
	env.MustCall(t, domain.ToolAppendEvent, map[string]any{"kind": "note", "content": secretNote})
}

const secretNote = "The deploy token is ghp_0123456789abcdefABCDEF0123456789abcd; rotate it."

func small() domain.Limits {
	l := domain.DefaultLimits()
	l.MaxResultBytes = 200
	return l
}

var cases = []goldenCase{
	{tool: domain.ToolReadQuery, name: "page", args: map[string]any{
		"query": "SELECT id, name, price FROM items ORDER BY id", "limit": 5, "offset": 10}},
	{tool: domain.ToolReadQuery, name: "last_page", args: map[string]any{
		"query": "SELECT id, name FROM items ORDER BY id", "limit": 5, "offset": 25}},
	{tool: domain.ToolReadQuery, name: "cells", args: map[string]any{
		"query": "SELECT id, title, body, data, NULL AS missing FROM notes ORDER BY id"}},
	{tool: domain.ToolReadQuery, name: "byte_cap", limits: small(), args: map[string]any{
		"query": "SELECT id, name, price, tags FROM items ORDER BY id"}},
	{tool: domain.ToolReadQuery, name: "refused_write", refused: true, args: map[string]any{
		"query": "DELETE FROM items"}},
	{tool: domain.ToolReadQuery, name: "refused_attach", refused: true, args: map[string]any{
		"query": "ATTACH DATABASE 'other.db' AS other"}},
	{tool: domain.ToolWriteQuery, name: "returning", args: map[string]any{
		"query": "INSERT INTO items (name, price, tags) VALUES ('item-31', 38.75, 't1'), ('item-32', NULL, NULL) RETURNING id, name, price"}},
	{tool: domain.ToolWriteQuery, name: "update", args: map[string]any{
		"query": "UPDATE items SET price = price * 2 WHERE id <= 3"}},
	{tool: domain.ToolWriteQuery, name: "refused_attach", refused: true, args: map[string]any{
		"query": "ATTACH DATABASE 'other.db' AS other"}},
	{tool: domain.ToolDestructiveQuery, name: "delete", args: map[string]any{
		"query": "DELETE FROM items WHERE id > 20", "reason": "drop the rows the migration test added"}},
	{tool: domain.ToolListTables, name: "counts", args: nil},
	{tool: domain.ToolListTables, name: "no_counts", args: map[string]any{"include_row_counts": false}},
	{tool: domain.ToolDescribeTable, name: "items", args: map[string]any{"table": "items"}},
	{tool: domain.ToolDescribeTable, name: "missing", refused: true, args: map[string]any{"table": "itemz"}},
	{tool: domain.ToolGetSchema, name: "default", args: nil},
	{tool: domain.ToolCreateView, name: "described", args: map[string]any{
		"name": "cheap_items", "select_sql": "SELECT id, name, price FROM items WHERE price < 5",
		"description": "Items under five euros"}},
	{tool: domain.ToolAppendEvent, name: "note", args: map[string]any{
		"kind": "decision", "content": "Keep prices as REAL until the migration lands."}},
	{tool: domain.ToolAppendEvent, name: "redacted", args: map[string]any{
		"kind": "note", "content": secretNote}},
	{tool: domain.ToolCheckpoint, name: "after_events", before: remember, args: map[string]any{
		"summary": "Rollback script drafted; next: review it with the team."}},
	{tool: domain.ToolGetResumeContext, name: "default", before: remember, args: nil},
	{tool: domain.ToolGetResumeContext, name: "max_bytes", before: rememberMore, args: map[string]any{"max_bytes": 1024}},
	{tool: domain.ToolGetResumeContext, name: "redacted", before: rememberSecret, args: nil},
	{tool: domain.ToolGetResumeContext, name: "retracted", before: rememberRetracted, args: nil},
	{tool: domain.ToolRetractEvent, name: "todo", before: remember, args: map[string]any{
		"id": 5, "reason": "The rollback script is not needed: the migration was cancelled."}},
	{tool: domain.ToolRetractEvent, name: "seal", before: remember, refused: true, args: map[string]any{"id": 4, "reason": "x"}},
	{tool: domain.ToolVerifyChain, name: "intact", before: remember, args: nil},
	{tool: domain.ToolSearchMemory, name: "ranked", before: remember, args: map[string]any{"query": "migration rollback"}},
	{tool: domain.ToolSearchMemory, name: "retracted", before: rememberRetracted, args: map[string]any{"query": "migration rollback"}},
	{tool: domain.ToolSearchText, name: "notes", args: map[string]any{
		"pattern": "apple|line", "table": "notes", "columns": []string{"title", "body"}}},
	{tool: domain.ToolSnapshot, name: "manual", args: map[string]any{"reason": "before the price migration"}},
}

func TestToolAnswers(t *testing.T) {
	for _, c := range cases {
		t.Run(c.tool+"_"+c.name, func(t *testing.T) {
			limits := c.limits
			if limits == (domain.Limits{}) {
				limits = domain.DefaultLimits()
			}
			env, clock := fixture(t, limits)
			if c.before != nil {
				c.before(t, env, clock)
			}
			clock.Advance(time.Minute)
			got, isErr := env.Call(t, c.tool, c.args)
			require.Equal(t, c.refused, isErr, "tool error? answer: %s", got)
			check(t, c.tool+"_"+c.name, scrub(env, got))
		})
	}
}

// TestEveryToolHasAGolden keeps the cases in step with the tools: a new
// tool fails here until its answer is pinned.
func TestEveryToolHasAGolden(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.tool] = true
	}
	for _, tool := range domain.OfferedTools(false, false) {
		assert.True(t, covered[tool.Name], "%s has no golden case", tool.Name)
	}
}

// TestToolsList pins what the agent is shown before its first call: every
// tool's name, title, annotations, description and input schema.
func TestToolsList(t *testing.T) {
	env, _ := fixture(t, domain.DefaultLimits())
	res, err := env.Client.ListTools(context.Background(), nil)
	require.NoError(t, err)
	out, err := json.MarshalIndent(res.Tools, "", "  ")
	require.NoError(t, err)
	check(t, "tools_list.json", string(out)+"\n")
}
