package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// memory is a chain and its checkpoints, built the way the server writes
// them, for the tests to tamper with.
type memory struct {
	t      *testing.T
	events []domain.Event
	cps    []domain.Checkpoint
}

func (m *memory) head() (int64, string) {
	if len(m.events) == 0 {
		return 0, domain.Genesis
	}
	e := m.events[len(m.events)-1]
	return e.ID, e.Hash
}

func (m *memory) append(content string) *memory {
	id, h := m.head()
	e, err := domain.NewEvent(id, h, "2026-12-01T10:00:00Z", "s", "note", content)
	require.NoError(m.t, err)
	m.events = append(m.events, e)
	return m
}

// reference adds a checkpoint as the reference writes it: no seal.
func (m *memory) reference(summary string) *memory {
	id, h := m.head()
	c, err := domain.NewCheckpoint(id, h, "2026-12-01T10:00:00Z", "r", summary)
	require.NoError(m.t, err)
	c.ID = int64(len(m.cps) + 1)
	m.cps = append(m.cps, c)
	return m
}

// ours adds a checkpoint as this server writes it: a marker first when
// the latest checkpoint is not sealed, then the checkpoint, then its seal.
func (m *memory) ours(summary string, marker bool) *memory {
	id, h := m.head()
	c, err := domain.NewCheckpoint(id, h, "2026-12-01T10:00:00Z", "s", summary)
	require.NoError(m.t, err)
	c.ID = int64(len(m.cps) + 1)
	if marker {
		var mk domain.Event
		mk, c, err = c.WithSealMarker()
		require.NoError(m.t, err)
		m.events = append(m.events, mk)
	}
	seal, err := domain.NewSeal(c)
	require.NoError(m.t, err)
	m.cps = append(m.cps, c)
	m.events = append(m.events, seal)
	return m
}

func (m *memory) verify() domain.VerifyResult {
	v := domain.NewChainVerifier()
	v.CheckCheckpoints()
	for _, c := range m.cps {
		v.Checkpoint(c)
	}
	for _, e := range m.events {
		if !v.Add(e) {
			break
		}
	}
	return v.Result(int64(len(m.events)))
}

func (m *memory) dropLastEvents(n int) *memory {
	m.events = m.events[:len(m.events)-n]
	return m
}

func TestVerifyChecksEveryCheckpoint(t *testing.T) {
	t.Parallel()
	build := func() *memory {
		return (&memory{t: t}).append("a").append("b").reference("by the reference").append("c")
	}
	for _, tc := range []struct {
		name   string
		mem    func() *memory
		ok     bool
		cp     int64
		sealed int64
		says   string
	}{
		{"reference checkpoints verify", func() *memory { return build().reference("again") }, true, 0, 0, ""},
		{"ours after the reference's", func() *memory { return build().ours("mine", true).append("d").ours("mine again", false) }, true, 0, 2, ""},
		{"ours on an empty chain", func() *memory { return (&memory{t: t}).ours("first", true) }, true, 0, 1, ""},
		{"an older summary edited", func() *memory {
			m := build().ours("mine", true).append("d").ours("latest", false)
			m.cps[1].Summary = "forged"
			return m
		}, false, 2, 1, "checkpoint 2 does not match its seal"},
		{"the latest summary edited and its seal, the last event, deleted", func() *memory {
			m := build().ours("mine", true).dropLastEvents(1)
			m.cps[1].Summary = "forged"
			return m
		}, false, 2, 0, "checkpoint 2 has no seal"},
		{"an older server's seals, the latest's deleted", func() *memory {
			m := build().ours("mine", false).append("d").ours("latest", false).dropLastEvents(1)
			return m
		}, false, 3, 1, "checkpoint 3 has no seal"},
		{"marker and seal deleted, checkpoint left", func() *memory {
			return build().ours("mine", true).dropLastEvents(2)
		}, false, 2, 0, "past the chain's last event"},
		{"a checkpoint row deleted", func() *memory {
			m := build().ours("mine", true).append("d")
			m.cps = m.cps[:1]
			return m
		}, false, 2, 0, "event 5 seals checkpoint 2, which is not in memory_checkpoints"},
		{"a checkpoint re-pointed", func() *memory {
			m := build().ours("mine", true).append("d")
			m.cps[1].LastEventID, m.cps[1].HeadHash = m.events[2].ID, m.events[2].Hash
			return m
		}, false, 2, 0, "event 5 seals checkpoint 2, which no longer points at the event before it"},
		{"a checkpoint's head hash edited", func() *memory {
			m := build()
			m.cps[0].HeadHash = domain.Genesis
			return m
		}, false, 1, 0, "checkpoint 1 points at event 2, which no longer has the hash it recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := tc.mem()
			r := m.verify()
			assert.Equal(t, tc.ok, r.OK, r.Reason)
			assert.Equal(t, tc.cp, r.CheckpointID)
			assert.Equal(t, int64(len(m.cps)), r.Checkpoints)
			assert.Equal(t, tc.sealed, r.Sealed)
			assert.Contains(t, r.Reason, tc.says)
			if !tc.ok {
				assert.Zero(t, r.BreakAt, "the events themselves are intact")
				assert.Contains(t, r.JSON(), `"checkpoint_id": `)
				assert.Contains(t, r.ChainSummary(), "chain BROKEN: "+r.Reason)
			}
		})
	}
}

func TestVerifyJSONWithCheckpoints(t *testing.T) {
	t.Parallel()
	m := (&memory{t: t}).append("a").ours("mine", true)
	r := m.verify()
	assert.Equal(t, `{"ok": true, "events": 3, "head_id": 3, "head_hash": "`+m.events[2].Hash+`", "checkpoints": 1, "sealed": 1}`, r.JSON())
	none := (&memory{t: t}).append("a").verify()
	assert.NotContains(t, none.JSON(), "checkpoints", "without checkpoints the reference's output, byte for byte")
	ref := (&memory{t: t}).append("a").reference("theirs").append("b").verify()
	assert.True(t, ref.OK)
	assert.Equal(t, int64(1), ref.Checkpoints)
	assert.NotContains(t, ref.JSON(), "checkpoints", "a file only the reference wrote: the reference's output, byte for byte")
}

func TestCheckpointsAreCheckedOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	m := (&memory{t: t}).append("a").ours("mine", true)
	m.cps = nil
	assert.False(t, m.verify().OK, "asked: a seal without its checkpoint is a break")
	v := domain.NewChainVerifier()
	for _, e := range m.events {
		v.Add(e)
	}
	assert.True(t, v.Result(int64(len(m.events))).OK, "events only, as the reference checks them")
}

func TestSealMarkerIsRefusedFromTheAgent(t *testing.T) {
	t.Parallel()
	assert.True(t, domain.LooksLikeSeal("checkpoint", domain.SealMarkerContent))
	assert.True(t, domain.LooksLikeSeal(" checkpoint ", " "+domain.SealMarkerContent+"\n"))
	assert.False(t, domain.LooksLikeSeal("note", domain.SealMarkerContent))
	id, ok := domain.SealID(domain.Event{Kind: "checkpoint", Content: domain.SealPrefix(12) + "ab"})
	assert.True(t, ok)
	assert.Equal(t, int64(12), id)
	for _, c := range []string{"checkpoint 012 sealed: sha256 x", "checkpoint x sealed: sha256 y", "checkpoint 1 sealed"} {
		_, ok := domain.SealID(domain.Event{Kind: "checkpoint", Content: c})
		assert.False(t, ok, c)
	}
}
