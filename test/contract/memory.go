package contract

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// TestMemoryStore checks what app relies on from a [ports.MemoryStore]
// (a fresh, empty one per subtest from open): appends chain onto the head
// they are shown, atomically, also when many run at once; a checkpoint is
// followed by its seal; a refused append stores nothing and seals no
// audit entry; Events walks in id order and counts every event; Resume
// picks the events after the latest checkpoint as the domain decides,
// leaving out retracted events and retractions, which it counts; Retract
// refuses an unknown id and leaves a retracted event as it is.
func TestMemoryStore(t *testing.T, open func(t *testing.T) ports.MemoryStore) {
	t.Helper()
	ctx := context.Background()
	const session = "20261201T100000Z-cafe"
	appendOne := func(t *testing.T, m ports.MemoryStore, kind, content string) domain.Event {
		t.Helper()
		e, err := m.Append(ctx, func(id int64, hash string) (domain.Event, error) {
			return domain.NewEvent(id, hash, "2026-12-01T10:00:00.000Z", session, kind, content)
		}, nil)
		require.NoError(t, err)
		return e
	}
	checkpoint := func(t *testing.T, m ports.MemoryStore, summary string) domain.Checkpoint {
		t.Helper()
		c, err := m.Checkpoint(ctx, func(id int64, hash string) (domain.Checkpoint, error) {
			return domain.NewCheckpoint(id, hash, "2026-12-01T10:00:01.000Z", session, summary)
		}, nil)
		require.NoError(t, err)
		return c
	}
	all := func(t *testing.T, m ports.MemoryStore) []domain.Event {
		t.Helper()
		var out []domain.Event
		n, err := m.Events(ctx, nil, func(e domain.Event) bool { out = append(out, e); return true })
		require.NoError(t, err)
		require.Equal(t, int64(len(out)), n)
		return out
	}

	t.Run("empty", func(t *testing.T) {
		m := open(t)
		assert.Empty(t, all(t, m))
		st, err := m.Resume(ctx, 10, nil)
		require.NoError(t, err)
		assert.Nil(t, st.Checkpoint)
		assert.Zero(t, st.Total)
		assert.Empty(t, st.Events)
	})
	t.Run("appends chain onto the head", func(t *testing.T) {
		m := open(t)
		var audited []domain.Event
		for i := range 3 {
			e, err := m.Append(ctx, func(id int64, hash string) (domain.Event, error) {
				return domain.NewEvent(id, hash, "2026-12-01T10:00:00.000Z", session, "note", fmt.Sprint("event ", i))
			}, func(e domain.Event) domain.AuditEntry {
				audited = append(audited, e)
				return domain.AuditEntry{TS: e.TS, Session: session, Tool: "append_event", OK: true}
			})
			require.NoError(t, err)
			assert.Equal(t, int64(i+1), e.ID)
		}
		events := all(t, m)
		require.Len(t, events, 3)
		assert.Equal(t, events, audited, "the audit function sees each stored event once")
		assert.Equal(t, domain.Genesis, events[0].PrevHash)
		for i := 1; i < len(events); i++ {
			assert.Equal(t, events[i-1].Hash, events[i].PrevHash)
		}
		v := domain.NewChainVerifier()
		n, err := m.Events(ctx, nil, v.Add)
		require.NoError(t, err)
		assert.True(t, v.Result(n).OK)
	})
	t.Run("a refused append stores nothing", func(t *testing.T) {
		m := open(t)
		appendOne(t, m, "note", "kept")
		refusal := domain.Errorf(domain.ErrInvalidArgument, "content must not be empty")
		audited := false
		_, err := m.Append(ctx, func(int64, string) (domain.Event, error) { return domain.Event{}, refusal },
			func(domain.Event) domain.AuditEntry { audited = true; return domain.AuditEntry{} })
		require.ErrorIs(t, err, domain.ErrInvalidArgument)
		assert.False(t, audited, "no audit entry for a write that did not happen")
		assert.Len(t, all(t, m), 1)
	})
	t.Run("Events stops when told and still counts", func(t *testing.T) {
		m := open(t)
		for i := range 5 {
			appendOne(t, m, "note", fmt.Sprint(i))
		}
		seen := 0
		n, err := m.Events(ctx, nil, func(domain.Event) bool { seen++; return seen < 2 })
		require.NoError(t, err)
		assert.Equal(t, 2, seen)
		assert.Equal(t, int64(5), n)
	})
	t.Run("a checkpoint is sealed and resume starts after it", func(t *testing.T) {
		m := open(t)
		appendOne(t, m, "note", "one")
		appendOne(t, m, "note", "two")
		c := checkpoint(t, m, "explored")
		assert.Equal(t, int64(1), c.ID)
		assert.Equal(t, int64(3), c.LastEventID, "the first checkpoint is anchored to the marker")
		events := all(t, m)
		require.Len(t, events, 4)
		assert.True(t, domain.IsSealMarker(events[2]), "the marker comes first")
		assert.True(t, domain.IsSealOf(events[3], c.ID), "the seal follows the checkpoint's head")
		appendOne(t, m, "note", "three")
		appendOne(t, m, "decision", "four")
		appendOne(t, m, "note", "five")

		st, err := m.Resume(ctx, 10, nil)
		require.NoError(t, err)
		require.NotNil(t, st.Checkpoint)
		assert.Equal(t, "explored", st.Checkpoint.Summary)
		assert.True(t, st.Anchored)
		assert.Equal(t, domain.Sealed, st.Coverage)
		assert.Equal(t, 3, st.Total, "the seal is part of the checkpoint, not an event since")
		assert.Equal(t, []string{"three", "four", "five"}, contents(st.Events))

		st, err = m.Resume(ctx, 2, nil)
		require.NoError(t, err)
		assert.Equal(t, 3, st.Total)
		assert.Equal(t, []string{"four", "five"}, contents(st.Events), "the most recent, oldest first")

		st, err = m.Resume(ctx, 10, []string{"note"})
		require.NoError(t, err)
		assert.Equal(t, 1, st.Total)
		assert.Equal(t, []string{"four"}, contents(st.Events))
	})
	t.Run("only the first checkpoint gets a marker, and Events shows them all", func(t *testing.T) {
		m := open(t)
		appendOne(t, m, "note", "one")
		first := checkpoint(t, m, "first")
		second := checkpoint(t, m, "second")
		appendOne(t, m, "note", "two")
		third := checkpoint(t, m, "third")
		assert.Equal(t, first.LastEventID+1, second.LastEventID, "anchored to the first one's seal: no second marker")
		assert.Equal(t, second.LastEventID+2, third.LastEventID)
		v := domain.NewChainVerifier()
		var seen []int64
		n, err := m.Events(ctx, func(c domain.Checkpoint) { seen = append(seen, c.ID); v.Checkpoint(c) }, v.Add)
		require.NoError(t, err)
		assert.Equal(t, []int64{1, 2, 3}, seen, "every checkpoint, in id order")
		r := v.Result(n)
		assert.True(t, r.OK, r.Reason)
		assert.Equal(t, int64(3), r.Sealed)
		assert.Equal(t, int64(6), n, "one, the marker, two seals, two, a seal")
	})
	t.Run("concurrent appends form one chain", func(t *testing.T) {
		m := open(t)
		const n = 24
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, err := m.Append(ctx, func(id int64, hash string) (domain.Event, error) {
					return domain.NewEvent(id, hash, "2026-12-01T10:00:00.000Z", session, "note", fmt.Sprint("writer ", i))
				}, nil)
				if !assert.NoError(t, err) {
					return
				}
			})
		}
		wg.Wait()
		events := all(t, m)
		require.Len(t, events, n)
		for i, e := range events {
			assert.Equal(t, int64(i+1), e.ID)
			if i > 0 {
				assert.Equal(t, events[i-1].Hash, e.PrevHash, "event %d follows the head it was shown", e.ID)
			}
		}
	})
	t.Run("a cancelled context", func(t *testing.T) {
		m := open(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := m.Append(cctx, func(id int64, hash string) (domain.Event, error) {
			return domain.NewEvent(id, hash, "2026-12-01T10:00:00.000Z", session, "note", "late")
		}, nil)
		require.Error(t, err)
		var de *domain.Error
		assert.True(t, errors.As(err, &de), "a *domain.Error the agent can read: %v", err)
		assert.Empty(t, all(t, m), "nothing stored")
	})

	t.Run("a retracted event leaves the resume, not the chain", func(t *testing.T) {
		m := open(t)
		appendOne(t, m, "note", "before")
		checkpoint(t, m, "s") // marker 2, seal 3
		appendOne(t, m, "note", "kept")
		appendOne(t, m, "note", "wrong")
		retract := func(target int64) (domain.Retraction, bool, error) {
			return m.Retract(ctx, target, func(id int64, hash string, e domain.Event) (domain.Event, domain.Retraction, error) {
				return domain.NewRetraction(id, hash, "2026-12-01T10:00:02.000Z", session, e, "a mistake")
			}, nil)
		}
		x, appended, err := retract(5)
		require.NoError(t, err)
		assert.True(t, appended)
		assert.Equal(t, domain.Retraction{EventID: 5, RetractionID: 6, Reason: "a mistake"}, x)
		again, appended, err := retract(5)
		require.NoError(t, err)
		assert.False(t, appended, "retracted already: nothing appended")
		assert.Equal(t, x, again)
		_, _, err = retract(99)
		assert.ErrorIs(t, err, domain.ErrNotFound)
		events := all(t, m)
		require.Len(t, events, 6, "the chain keeps both")
		v := domain.NewChainVerifier()
		for _, e := range events {
			require.True(t, v.Add(e), e.ID)
		}
		for _, exclude := range [][]string{nil, {"debug"}} {
			st, err := m.Resume(ctx, 10, exclude)
			require.NoError(t, err)
			assert.Equal(t, []string{"kept"}, contents(st.Events), exclude)
			assert.Equal(t, 1, st.Total, exclude)
			assert.Equal(t, 1, st.Retracted, exclude)
		}
	})
}

func contents(events []domain.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Content)
	}
	return out
}
