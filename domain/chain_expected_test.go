package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func expectedChain(t *testing.T, contents ...string) []domain.Event {
	t.Helper()
	var out []domain.Event
	id, head := int64(0), domain.Genesis
	for _, c := range contents {
		e, err := domain.NewEvent(id, head, "2026-09-13T10:11:12Z", "s", "note", c)
		require.NoError(t, err)
		out = append(out, e)
		id, head = e.ID, e.Hash
	}
	return out
}

func verifyExpecting(events []domain.Event, expected string) domain.VerifyResult {
	v := domain.NewChainVerifier()
	v.ExpectHead(expected)
	for _, e := range events {
		v.Add(e)
	}
	return v.Result(int64(len(events)))
}

// TestExpectedHeadCatchesARecomputedChain: a chain rewritten with every
// hash recomputed verifies on its own; the head hash kept from before does
// not appear in it.
func TestExpectedHeadCatchesARecomputedChain(t *testing.T) {
	t.Parallel()
	good := expectedChain(t, "a", "b", "c")
	kept := good[1].Hash // kept after event 2; event 3 came later

	r := verifyExpecting(good, kept)
	assert.True(t, r.OK)
	assert.Equal(t, int64(2), r.ExpectedID)
	assert.Equal(t, `{"ok": true, "events": 3, "head_id": 3, "head_hash": "`+good[2].Hash+`", "expected_head_id": 2}`, r.JSON())

	forged := expectedChain(t, "a", "B", "c")
	assert.True(t, verifyExpecting(forged, "").OK, "recomputed hashes verify without a kept head")
	r = verifyExpecting(forged, kept)
	assert.False(t, r.OK)
	assert.Equal(t, int64(0), r.ExpectedID)
	assert.Equal(t, int64(0), r.BreakAt)
	assert.Contains(t, r.JSON(), `"expected_head_id": 0, "break_at_id": 0, "reason": "the chain does not contain the head hash you kept (`+kept+`)`)
	assert.True(t, strings.HasPrefix(r.ChainSummary(), "chain BROKEN: the chain does not contain"), r.ChainSummary())

	broken := append([]domain.Event(nil), good...)
	broken[0].Content = "x"
	r = verifyExpecting(broken, kept)
	assert.False(t, r.OK)
	assert.Equal(t, int64(1), r.BreakAt, "a real break is reported first")
}

func TestParseHeadHash(t *testing.T) {
	t.Parallel()
	h := strings.Repeat("Ab", 32)
	got, err := domain.ParseHeadHash(" " + h + "\n")
	require.NoError(t, err)
	assert.Equal(t, strings.ToLower(h), got)
	for _, bad := range []string{"", "abc", strings.Repeat("g", 64), strings.Repeat("a", 65), h[:12]} {
		_, err := domain.ParseHeadHash(bad)
		assert.ErrorIs(t, err, domain.ErrInvalidArgument, bad)
	}
}
