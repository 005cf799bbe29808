package domain

import (
	"slices"
	"time"
)

// The OAuth scopes of the three tiers. A token's scope grants the tier it
// names and no other: sqlite:write does not imply sqlite:read, so a token
// limited to appending memory cannot read the database. A client that
// needs several tiers asks for each scope (docs/decisions.md#oauth-scopes-and-tiers).
const (
	// ScopeRead grants the read tools.
	ScopeRead = "sqlite:read"
	// ScopeWrite grants the write tools (DML, additive DDL, memory writes,
	// snapshots).
	ScopeWrite = "sqlite:write"
	// ScopeDestructive grants destructive_query.
	ScopeDestructive = "sqlite:destructive"
)

// Scopes lists the tiers' scopes, read first, as a server publishes them
// (scopes_supported).
func Scopes() []string { return []string{ScopeRead, ScopeWrite, ScopeDestructive} }

// Scope is the OAuth scope that grants t, "" for no valid tier.
func (t Tier) Scope() string {
	switch t {
	case TierRead:
		return ScopeRead
	case TierWrite:
		return ScopeWrite
	case TierDestructive:
		return ScopeDestructive
	}
	return ""
}

// Grant is what a verified access token allows: who it was issued to and
// the tiers its scopes name. The zero Grant allows nothing.
type Grant struct {
	// Subject identifies the token's holder (the issuer's sub, or its
	// client_id when the token has no subject).
	Subject string
	// Expiry is when the token stops being valid.
	Expiry time.Time
	tiers  [TierDestructive + 1]bool
}

// NewGrant is the grant of a token with these scopes; scopes that name no
// tier are ignored.
func NewGrant(subject string, scopes []string, expiry time.Time) Grant {
	g := Grant{Subject: subject, Expiry: expiry}
	for t := TierRead; t <= TierDestructive; t++ {
		g.tiers[t] = slices.Contains(scopes, t.Scope())
	}
	return g
}

// Allows reports whether the grant's scopes name tier t.
func (g Grant) Allows(t Tier) bool { return t.valid() && g.tiers[t] }

// Scopes lists the tiers' scopes the grant holds, read first.
func (g Grant) Scopes() []string {
	var out []string
	for t := TierRead; t <= TierDestructive; t++ {
		if g.tiers[t] {
			out = append(out, t.Scope())
		}
	}
	return out
}
