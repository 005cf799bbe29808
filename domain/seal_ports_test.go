package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestIsSeal(t *testing.T) {
	c := domain.Checkpoint{ID: 12, LastEventID: 3, HeadHash: domain.Genesis, TS: "2026-12-01T10:00:00.000Z", Session: "s", Summary: "x"}
	seal, err := domain.NewSeal(c)
	assert.NoError(t, err)
	for _, tc := range []struct {
		name string
		e    domain.Event
		want bool
	}{
		{"a real seal", seal, true},
		{"another checkpoint's prefix", domain.Event{Kind: domain.SealKind, Content: domain.SealPrefix(99) + "ab"}, true},
		{"the right words, another kind", domain.Event{Kind: "note", Content: seal.Content}, false},
		{"the lead without the mark", domain.Event{Kind: domain.SealKind, Content: "checkpoint 12 was fine"}, false},
		{"the mark without the lead", domain.Event{Kind: domain.SealKind, Content: "so checkpoint 12 sealed: sha256 ab"}, false},
	} {
		assert.Equal(t, tc.want, domain.IsSeal(tc.e), tc.name)
	}
	assert.True(t, domain.IsSealOf(seal, 12))
	assert.False(t, domain.IsSealOf(seal, 1), "12's seal is not 1's")
}
