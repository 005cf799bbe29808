package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// appendAll appends events to the world's chain through the service.
func appendAll(t *testing.T, w *world, contents ...string) {
	t.Helper()
	for _, c := range contents {
		_, err := w.svc.AppendEvent(context.Background(), domain.AppendEventRequest{Content: c, Kind: "note"})
		require.NoError(t, err)
		w.clock.Advance(time.Second)
	}
}

func TestAppendEvent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, kind string
		wantKind            error
		wantOut             string
	}{
		{name: "first event", content: "  loaded the shop  ", kind: "note", wantOut: "ok: event 1 appended (hash "},
		{name: "blank content", content: " \n", kind: "note", wantKind: domain.ErrInvalidArgument},
		{name: "a forged seal", content: "checkpoint 1 sealed: sha256 " + strings.Repeat("a", 64), kind: "checkpoint",
			wantKind: domain.ErrInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			out, err := text(w.svc.AppendEvent(context.Background(), domain.AppendEventRequest{Content: tc.content, Kind: tc.kind}))
			e := w.onlyEntry(t)
			assert.Equal(t, "append_event", e.Tool)
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind)
				assert.Empty(t, w.db.Memory.Chain, "nothing appended")
				assert.False(t, e.OK)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, out, tc.wantOut)
			require.Len(t, w.db.Memory.Chain, 1)
			ev := w.db.Memory.Chain[0]
			assert.Equal(t, "loaded the shop", ev.Content, "stripped")
			assert.Equal(t, domain.Genesis, ev.PrevHash)
			assert.Equal(t, ev.ComputeHash(), ev.Hash, "the core computes the hash")
			assert.Equal(t, domain.FormatTS(epoch), ev.TS, "the clock's time")
			assert.Equal(t, "20261201T100000Z-test", ev.Session)
			assert.Contains(t, out, ev.Hash[:12])
			assert.True(t, e.OK)
			assert.Contains(t, e.Detail, `"event_id": 1`, "the sealed row names the event")
		})
	}
}

func TestVerifyChain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		tamper   func(w *world)
		expected func(w *world) string
		wantKind error
		wantOut  []string
	}{
		{name: "intact", wantOut: []string{`{"ok": true, "events": 3, "head_id": 3`}},
		{name: "content changed outside the server", tamper: func(w *world) { w.db.Memory.Chain[1].Content = "rewritten" },
			wantOut: []string{`"ok": false`, `"break_at_id": 2`}},
		{name: "expected head present", expected: func(w *world) string { return w.db.Memory.Chain[1].Hash },
			wantOut: []string{`"ok": true`, `"expected_head_id": 2`}},
		{name: "expected head missing", expected: func(*world) string { return strings.Repeat("b", 64) },
			wantOut: []string{`"ok": false`}},
		{name: "a malformed expected head", expected: func(*world) string { return "not a hash" }, wantKind: domain.ErrInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			appendAll(t, w, "one", "two", "three")
			if tc.tamper != nil {
				tc.tamper(w)
			}
			expected := ""
			if tc.expected != nil {
				expected = tc.expected(w)
			}
			out, err := text(w.svc.VerifyChain(context.Background(), domain.VerifyChainRequest{ExpectedHead: expected}))
			entries := w.db.Entries()
			require.Len(t, entries, 4, "three appends, one verify")
			e := entries[3]
			assert.Equal(t, "verify_chain", e.Tool)
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind)
				assert.False(t, e.OK)
				return
			}
			require.NoError(t, err, "a broken chain is an answer, not an error")
			for _, s := range tc.wantOut {
				assert.Contains(t, out, s)
			}
			assert.True(t, e.OK)
		})
	}
}

// A timeout while verifying says what to raise: the whole chain must be
// read, so "add a LIMIT" would not help.
func TestVerifyChainTimeoutNamesTheFlag(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(l *domain.Limits) { l.QueryTimeout = 50 * time.Millisecond })
	w.db.Memory.EventsFn = func(ctx context.Context, _ func(domain.Checkpoint), _ func(domain.Event) bool) (int64, error) {
		<-ctx.Done() // a chain too long to walk in time
		return 7, domain.Errorf(domain.ErrTimeout, "query exceeded; add a LIMIT")
	}
	_, err := w.svc.VerifyChain(context.Background(), domain.VerifyChainRequest{})
	wantKind(t, err, domain.ErrTimeout, "--query-timeout", "7 events read")
	assert.NotContains(t, err.Error(), "LIMIT", "the whole chain must be read: a LIMIT cannot help")
}

func TestCheckpointAndResume(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	appendAll(t, w, "one", "two")
	out, err := text(w.svc.Checkpoint(context.Background(), domain.CheckpointRequest{Summary: "explored the shop"}))
	require.NoError(t, err)
	assert.Equal(t, "ok: checkpoint 1 written at event 3", out, "anchored to the marker that follows event 2")
	require.Len(t, w.db.Memory.Chain, 4, "the marker, then the checkpoint's seal after its head")
	assert.True(t, domain.IsSealMarker(w.db.Memory.Chain[2]))
	assert.True(t, domain.IsSealOf(w.db.Memory.Chain[3], 1))
	appendAll(t, w, "three", "four")

	cases := []struct {
		name     string
		max      int
		exclude  string
		wantKind error
		wantOut  []string
		notOut   []string
		detail   string
	}{
		{name: "everything since the checkpoint", max: 10, wantOut: []string{"explored the shop", "three", "four"}, notOut: []string{",one", ",two"},
			detail: `"checkpoint_id": 1, "chain_ok": true, "excluded": []`},
		{name: "the most recent only", max: 1, wantOut: []string{"four"}, notOut: []string{"three"}},
		{name: "kinds excluded, blanks ignored", max: 10, exclude: " note , ,decision", notOut: []string{"three", "four"},
			detail: `"excluded": ["note", "decision"]`},
		{name: "max_events 0", max: 0, wantKind: domain.ErrInvalidArgument},
		{name: "max_events above max_rows", max: 1001, wantKind: domain.ErrInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(w.db.Entries())
			out, err := text(w.svc.GetResumeContext(context.Background(), domain.GetResumeContextRequest{MaxEvents: tc.max, MaxBytes: domain.DefaultLimits().ResumeBytes(), ExcludeKinds: tc.exclude}))
			entries := w.db.Entries()
			require.Len(t, entries, before+1)
			e := entries[before]
			assert.Equal(t, "get_resume_context", e.Tool)
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind, "max_events")
				return
			}
			require.NoError(t, err)
			for _, s := range tc.wantOut {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.notOut {
				assert.NotContains(t, out, s)
			}
			assert.Contains(t, e.Detail, tc.detail)
		})
	}
}
