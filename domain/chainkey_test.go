package domain_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func mustKey(t *testing.T, b byte) *domain.ChainKey {
	t.Helper()
	k, err := domain.NewChainKey(bytes.Repeat([]byte{b}, 32))
	require.NoError(t, err)
	return k
}

func TestNewChainKey(t *testing.T) {
	_, err := domain.NewChainKey(make([]byte, 31))
	require.ErrorIs(t, err, domain.ErrInvalidArgument)
	k := mustKey(t, 7)
	assert.Len(t, k.ID(), 16)
	assert.NotEqual(t, k.ID(), mustKey(t, 8).ID())
	s := k.Sign(3, "ab")
	assert.Equal(t, domain.HeadSignature{EventID: 3, HeadHash: "ab", KeyID: k.ID(), MAC: s.MAC}, s)
	assert.Len(t, s.MAC, 64)
	assert.NotEqual(t, s.MAC, k.Sign(4, "ab").MAC, "the id is signed")
	assert.NotEqual(t, s.MAC, k.Sign(3, "ac").MAC, "the hash is signed")
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		printed := fmt.Sprintf(f, struct{ Key *domain.ChainKey }{k})
		assert.Contains(t, printed, k.ID(), f)
		assert.NotContains(t, printed, "7 7 7", f)
		assert.NotContains(t, printed, "\a\a", f)
	}
}

// TestCheckHeadSignature walks every verdict: what a keyed chain proves,
// and that without a key nothing changes but the report.
func TestCheckHeadSignature(t *testing.T) {
	key, other := mustKey(t, 1), mustKey(t, 2)
	const h5, h4 = "5555", "4444"
	walk := domain.VerifyResult{OK: true, Events: 5, HeadID: 5, HeadHash: h5}
	good := key.Sign(5, h5)
	forged := good
	forged.HeadHash = "6666" // a rewrite: the attacker cannot make a MAC
	old := key.Sign(4, h4)
	cases := []struct {
		name          string
		key           *domain.ChainKey
		latest        *domain.HeadSignature
		hash          string
		found         bool
		wantOK        bool
		wantSignature string
		wantBreak     int64
	}{
		{"no key, no signature: as today", nil, nil, "", false, true, "", 0},
		{"no key, signed: unchecked", nil, &good, h5, true, true, domain.SignatureUnchecked, 0},
		{"no key, forged: not detectable", nil, &forged, h5, true, true, domain.SignatureUnchecked, 0},
		{"key, head signed", key, &good, h5, true, true, domain.SignatureVerified, 0},
		{"key, no signature", key, nil, "", false, false, domain.SignatureBroken, 1},
		{"key, head rehashed", key, &good, "7777", true, false, domain.SignatureBroken, 5},
		{"key, signed event gone", key, &good, "", false, false, domain.SignatureBroken, 5},
		{"key, signature rewritten", key, &forged, "6666", true, false, domain.SignatureBroken, 5},
		{"key, other key", other, &good, h5, true, false, domain.SignatureBroken, 5},
		{"key, unsigned tail", key, &old, h4, true, false, domain.SignatureBroken, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := domain.CheckHeadSignature(walk, tc.key, tc.latest, tc.hash, tc.found)
			assert.Equal(t, tc.wantOK, r.OK, r.Reason)
			assert.Equal(t, tc.wantSignature, r.Signature)
			assert.Equal(t, tc.wantBreak, r.BreakAt)
			if !tc.wantOK {
				assert.NotEmpty(t, r.Reason)
			}
		})
	}
	// An empty chain under a key is fine.
	r := domain.CheckHeadSignature(domain.VerifyResult{OK: true, HeadHash: domain.Genesis}, key, nil, "", false)
	assert.True(t, r.OK)
	assert.Equal(t, domain.SignatureEmpty, r.Signature)
	// A walk that broke stays as it was.
	broken := domain.VerifyResult{OK: false, BreakAt: 2, Reason: "x"}
	assert.Equal(t, broken, domain.CheckHeadSignature(broken, key, nil, "", false))
	// The report names the key, never the key's bytes.
	r = domain.CheckHeadSignature(walk, key, &good, h5, true)
	assert.Equal(t, `{"ok": true, "events": 5, "head_id": 5, "head_hash": "5555", "signature": "verified", "key": "`+key.ID()+`", "signed_id": 5}`, r.JSON())
}
