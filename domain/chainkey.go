package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// MinChainKeyBytes is the shortest chain key accepted: 256 bits, the size
// of HMAC-SHA256's output.
const MinChainKeyBytes = 32

// ChainKey signs the chain's head with HMAC-SHA256 (docs/decisions.md#keyed-chain).
// The key lives outside the database, so someone who can rewrite the file
// and recompute every hash still cannot sign the new head. Build it with
// [NewChainKey]; the zero value is not usable.
type ChainKey struct {
	key []byte
	id  string
}

// NewChainKey returns the key made of b (copied), the whole contents of
// the key file.
//
// Errors: [ErrInvalidArgument] when b is shorter than [MinChainKeyBytes].
func NewChainKey(b []byte) (*ChainKey, error) {
	if len(b) < MinChainKeyBytes {
		return nil, Errorf(ErrInvalidArgument, "a chain key must be at least %d bytes (this one has %d); make one with: head -c 32 /dev/urandom > KEYFILE", MinChainKeyBytes, len(b))
	}
	sum := sha256.Sum256(b)
	return &ChainKey{key: append([]byte(nil), b...), id: hex.EncodeToString(sum[:8])}, nil
}

// ID is the key's fingerprint: the first 8 bytes of the SHA-256 of the key,
// in hex. It names the key in signatures and reports; it never reveals it.
func (k *ChainKey) ID() string { return k.id }

// String names the key by its fingerprint, so printing a value that holds
// it (a logged configuration) never shows the key.
func (k *ChainKey) String() string { return "chain key " + k.id }

// GoString is [ChainKey.String], for %#v.
func (k *ChainKey) GoString() string { return k.String() }

// HeadSignature is one row of memory_head_signatures: the MAC of the
// chain's head (event EventID, whose hash is HeadHash) under the key
// KeyID names.
type HeadSignature struct {
	EventID  int64
	HeadHash string
	KeyID    string
	MAC      string
}

// Sign returns the signature of the head (id, hash).
func (k *ChainKey) Sign(id int64, hash string) HeadSignature {
	return HeadSignature{EventID: id, HeadHash: hash, KeyID: k.id, MAC: hex.EncodeToString(k.mac(id, hash))}
}

// mac is HMAC-SHA256 over a domain-separated spelling of the head, so a
// MAC made for anything else never passes for a head's.
func (k *ChainKey) mac(id int64, hash string) []byte {
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte("mcp-sqlite-memory chain head v1\x00"))
	m.Write(strconv.AppendInt(nil, id, 10))
	m.Write([]byte{0})
	m.Write([]byte(hash))
	return m.Sum(nil)
}

// valid reports whether s was made with k (constant-time comparison).
func (k *ChainKey) valid(s HeadSignature) bool {
	got, err := hex.DecodeString(s.MAC)
	return err == nil && s.KeyID == k.id && hmac.Equal(got, k.mac(s.EventID, s.HeadHash))
}

// What verify_chain says about the head's signature ([VerifyResult.Signature]).
const (
	// SignatureVerified: the head is signed with the server's key.
	SignatureVerified = "verified"
	// SignatureUnchecked: the head is signed, but the server has no key to
	// check it with.
	SignatureUnchecked = "unchecked"
	// SignatureBroken: with the server's key, the chain fails to prove
	// itself (see the reason).
	SignatureBroken = "broken"
	// SignatureEmpty: the server has a key and the chain no event to sign.
	SignatureEmpty = "empty"
)

// The reasons a keyed chain fails to prove itself.
const (
	reasonUnsigned   = "the chain's head is not signed: no event was appended with the chain key since the file was made, or the signatures were removed; a chain rewritten by someone without the key looks the same (to sign the chain as it is now, append an event)"
	reasonOtherKey   = "the head (event %d) is signed by key %s, not by this server's key %s"
	reasonBadMAC     = "the signature of event %d does not verify with key %s: the signatures were rewritten without the key"
	reasonSignedHash = "event %d no longer has the hash key %s signed: the chain was rewritten and its hashes recomputed"
	reasonTail       = "events %d to %d were stored without the chain key's signature (signed up to event %d): they were added or rewritten by someone without the key"
)

// CheckHeadSignature completes r, a walk that ended at r.HeadID, with what
// the head's signature proves. key is the server's chain key (nil without
// one); latest is the newest signature of an event at or before r.HeadID
// (nil when there is none), and signedHash the hash event latest.EventID
// has now (found false when there is no such event). Without a key,
// nothing breaks: a signature present is reported as unchecked. With a
// key, every event must be covered by a signature of that key whose head
// is still in the chain; an unsigned tail is a break, since the server
// signs in the same transaction as every append. A walk that already
// broke is returned as it is.
func CheckHeadSignature(r VerifyResult, key *ChainKey, latest *HeadSignature, signedHash string, found bool) VerifyResult {
	if !r.OK {
		return r
	}
	if key == nil {
		if latest != nil {
			r.Signature, r.SignedBy, r.SignedID = SignatureUnchecked, latest.KeyID, latest.EventID
		}
		return r
	}
	r.SignedBy = key.ID()
	breakAt := func(id int64, reason string) VerifyResult {
		r.OK, r.Signature, r.BreakAt, r.Reason = false, SignatureBroken, id, reason
		return r
	}
	switch {
	case r.HeadID == 0 && latest == nil:
		r.Signature = SignatureEmpty
		return r
	case latest == nil:
		return breakAt(1, reasonUnsigned)
	}
	r.SignedID = latest.EventID
	switch {
	case latest.KeyID != key.ID():
		r.SignedBy = latest.KeyID
		return breakAt(latest.EventID, fmt.Sprintf(reasonOtherKey, latest.EventID, latest.KeyID, key.ID()))
	case !key.valid(*latest):
		return breakAt(latest.EventID, fmt.Sprintf(reasonBadMAC, latest.EventID, key.ID()))
	case !found || signedHash != latest.HeadHash:
		return breakAt(latest.EventID, fmt.Sprintf(reasonSignedHash, latest.EventID, key.ID()))
	case latest.EventID < r.HeadID:
		return breakAt(latest.EventID+1, fmt.Sprintf(reasonTail, latest.EventID+1, r.HeadID, latest.EventID))
	}
	r.Signature = SignatureVerified
	return r
}
