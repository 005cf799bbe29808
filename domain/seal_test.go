package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func sealedCheckpoint(t *testing.T) (domain.Checkpoint, domain.Event) {
	t.Helper()
	c, err := domain.NewCheckpoint(2, strings.Repeat("a", 64), "2026-09-13T10:11:12Z", "s", "two in; next: \"three\"\n")
	require.NoError(t, err)
	c.ID = 5
	seal, err := domain.NewSeal(c)
	require.NoError(t, err)
	return c, seal
}

func TestSealFollowsTheHeadAndHashesEveryField(t *testing.T) {
	t.Parallel()
	c, seal := sealedCheckpoint(t)
	assert.Equal(t, int64(3), seal.ID)
	assert.Equal(t, c.HeadHash, seal.PrevHash)
	assert.Equal(t, domain.SealKind, seal.Kind)
	assert.Equal(t, `[5,"2026-09-13T10:11:12Z","s","two in; next: \"three\"",2,"`+strings.Repeat("a", 64)+`"]`, string(c.SealPayload()))
	assert.Regexp(t, `^checkpoint 5 sealed: sha256 [0-9a-f]{64}$`, seal.Content)
	assert.True(t, domain.IsSealOf(seal, 5))
	assert.False(t, domain.IsSealOf(seal, 50), "the id ends at the space")
	assert.Equal(t, seal.ComputeHash(), seal.Hash)

	for name, change := range map[string]func(*domain.Checkpoint){
		"summary":       func(c *domain.Checkpoint) { c.Summary += "!" },
		"ts":            func(c *domain.Checkpoint) { c.TS = "2026-09-13T10:11:13Z" },
		"session":       func(c *domain.Checkpoint) { c.Session = "t" },
		"id":            func(c *domain.Checkpoint) { c.ID = 6 },
		"last_event_id": func(c *domain.Checkpoint) { c.LastEventID = 1 },
		"head_hash":     func(c *domain.Checkpoint) { c.HeadHash = strings.Repeat("b", 64) },
	} {
		edited := c
		change(&edited)
		assert.NotEqual(t, c.SealContent(), edited.SealContent(), name)
	}
}

func TestCheckpointCoverage(t *testing.T) {
	t.Parallel()
	c, seal := sealedCheckpoint(t)
	assert.Equal(t, domain.Sealed, c.Coverage(&seal, false))
	assert.Equal(t, domain.Sealed, c.Coverage(&seal, true))
	assert.Equal(t, domain.Unsealed, c.Coverage(nil, false), "a reference or older checkpoint")
	assert.Equal(t, domain.SealMissing, c.Coverage(nil, true), "unsealed after a marker or seal: its seal was deleted")

	edited := c
	edited.Summary = "forged"
	assert.Equal(t, domain.SealBroken, edited.Coverage(&seal, false), "an edited summary no longer matches its seal")
	moved := seal
	moved.ID = 9
	assert.Equal(t, domain.SealBroken, c.Coverage(&moved, false), "a seal elsewhere than right after the head")
}
