package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Each scope grants its own tier only: write does not imply read, and
// destructive implies neither.
func TestGrantEachScopeGrantsItsTierOnly(t *testing.T) {
	cases := []struct {
		name   string
		scopes []string
		want   []bool // read, write, destructive
	}{
		{"none", nil, []bool{false, false, false}},
		{"read", []string{domain.ScopeRead}, []bool{true, false, false}},
		{"write alone does not read", []string{domain.ScopeWrite}, []bool{false, true, false}},
		{"destructive alone", []string{domain.ScopeDestructive}, []bool{false, false, true}},
		{"all three", domain.Scopes(), []bool{true, true, true}},
		{"unknown scopes ignored", []string{"openid", "sqlite:admin", "SQLITE:READ"}, []bool{false, false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := domain.NewGrant("alice", c.scopes, time.Time{})
			got := []bool{g.Allows(domain.TierRead), g.Allows(domain.TierWrite), g.Allows(domain.TierDestructive)}
			assert.Equal(t, c.want, got)
		})
	}
	assert.False(t, domain.Grant{}.Allows(domain.TierRead), "the zero grant allows nothing")
	assert.False(t, domain.NewGrant("a", domain.Scopes(), time.Time{}).Allows(domain.Tier(0)), "no invalid tier")
	assert.Equal(t, []string{domain.ScopeRead, domain.ScopeDestructive}, domain.NewGrant("a", []string{domain.ScopeDestructive, domain.ScopeRead}, time.Time{}).Scopes())
}
