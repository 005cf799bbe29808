package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestRetractEventLeavesTheMemoryToolsButNotTheChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t)
	appendAll(t, w, "the deploy key is in vault", "the deploy key is in the repo", "deploy done")
	out, err := text(w.svc.RetractEvent(ctx, domain.RetractEventRequest{ID: 2, Reason: "wrong: it never was in the repo"}))
	require.NoError(t, err)
	assert.Equal(t, "ok: event 2 retracted by event 4; it stays in the chain", out)
	require.Len(t, w.db.Memory.Chain, 4)
	assert.Equal(t, domain.RetractionKind, w.db.Memory.Chain[3].Kind)

	res, err := text(w.svc.GetResumeContext(ctx, domain.GetResumeContextRequest{MaxEvents: 20, MaxBytes: 20_000}))
	require.NoError(t, err)
	assert.Contains(t, res, "# 2 events, 1 retracted left out | chain ok (4 events")
	assert.NotContains(t, res, "in the repo")
	assert.NotContains(t, res, "retracts event")

	found, err := text(w.svc.SearchMemory(ctx, domain.SearchMemoryRequest{Query: "deploy key", Limit: 10}))
	require.NoError(t, err)
	assert.NotContains(t, found, "in the repo")
	assert.Contains(t, found, "in vault")
	assert.Contains(t, found, "# 1 retracted left out ("+domain.ToolRetractEvent)

	ev, err := w.svc.ReadResource(ctx, "memory://events/2")
	require.NoError(t, err)
	assert.Contains(t, ev, "# retracted by event 4: wrong: it never was in the repo")
	assert.NotContains(t, ev, "is in the repo")

	v, err := text(w.svc.VerifyChain(ctx, domain.VerifyChainRequest{}))
	require.NoError(t, err)
	assert.Contains(t, v, `"ok": true`)
	assert.Contains(t, v, `"events": 4`)
}

func TestRetractEventRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t)
	appendAll(t, w, "one")
	_, err := w.svc.Checkpoint(ctx, domain.CheckpointRequest{Summary: "summary"})
	require.NoError(t, err)
	_, err = w.svc.RetractEvent(ctx, domain.RetractEventRequest{ID: 1, Reason: "first"})
	require.NoError(t, err)
	seal := w.db.Memory.Chain[2] // marker at 2, seal at 3, retraction at 4
	require.True(t, domain.MarksSealing(seal), seal.Content)
	for _, tc := range []struct {
		name string
		r    domain.RetractEventRequest
		kind error
		says string
	}{
		{"unknown id", domain.RetractEventRequest{ID: 99, Reason: "x"}, domain.ErrNotFound, "there is no event 99"},
		{"id zero", domain.RetractEventRequest{ID: 0, Reason: "x"}, domain.ErrInvalidArgument, domain.ToolSearchMemory},
		{"blank reason", domain.RetractEventRequest{ID: 1, Reason: "  "}, domain.ErrInvalidArgument, "say why event 1"},
		{"a seal", domain.RetractEventRequest{ID: int(seal.ID), Reason: "x"}, domain.ErrInvalidArgument, "seal or marker"},
		{"a retraction", domain.RetractEventRequest{ID: 4, Reason: "x"}, domain.ErrInvalidArgument, "is a retraction"},
	} {
		n := len(w.db.Memory.Chain)
		_, err := w.svc.RetractEvent(ctx, tc.r)
		wantKind(t, err, tc.kind, tc.says)
		assert.Len(t, w.db.Memory.Chain, n, "%s: nothing appended", tc.name)
	}
	last := w.db.Entries()[len(w.db.Entries())-1]
	assert.Equal(t, domain.ToolRetractEvent, last.Tool, "refusals are audited")
	assert.False(t, last.OK)

	// Retracting again is answered, and appends nothing: a retry is safe.
	n := len(w.db.Memory.Chain)
	out, err := text(w.svc.RetractEvent(ctx, domain.RetractEventRequest{ID: 1, Reason: "other"}))
	require.NoError(t, err)
	assert.Equal(t, "ok: event 1 was already retracted by event 4 (first); nothing appended", out)
	assert.Len(t, w.db.Memory.Chain, n)
	last = w.db.Entries()[len(w.db.Entries())-1]
	assert.Equal(t, domain.ToolRetractEvent, last.Tool, "audited")
	assert.True(t, last.OK)
}

func TestAppendEventRefusesTheRetractionKind(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	appendAll(t, w, "one")
	_, err := w.svc.AppendEvent(context.Background(), domain.AppendEventRequest{Content: "retracts event 1: forged", Kind: " retraction "})
	wantKind(t, err, domain.ErrInvalidArgument, domain.ToolRetractEvent)
	assert.Len(t, w.db.Memory.Chain, 1)
	assert.Empty(t, w.db.Memory.Retractions)
}
