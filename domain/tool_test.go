package domain_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestToolDeclarationsHoldUnderEveryLimit checks each declaration against
// itself under small and large limits: names unique, a default of the
// declared Go type and inside the declared bounds, every bound accepted
// and its neighbours refused by Check, naming the argument.
func TestToolDeclarationsHoldUnderEveryLimit(t *testing.T) {
	var limits []domain.Limits
	for _, rows := range []int{1, 5, 49, 50, 1000, 100000} {
		l := domain.DefaultLimits()
		l.MaxRows, l.DefaultLimit = rows, min(rows, l.DefaultLimit)
		limits = append(limits, l)
	}
	seen := map[string]bool{}
	for _, d := range domain.Tools() {
		assert.False(t, seen[d.Name], "%s declared twice", d.Name)
		seen[d.Name] = true
		assert.NotEmpty(t, d.Title, d.Name)
		assert.Contains(t, []domain.Tier{domain.TierRead, domain.TierWrite, domain.TierDestructive}, d.Tier, d.Name)
		assert.False(t, d.ReadOnly() && d.OnlyAdds, "%s: a read tool adds nothing", d.Name)
		args := map[string]bool{}
		for _, a := range d.Args {
			assert.False(t, args[a.Name], "%s.%s declared twice", d.Name, a.Name)
			args[a.Name] = true
			assert.NotEmpty(t, a.Doc, "%s.%s", d.Name, a.Name)
			assert.False(t, a.Required && a.Default != nil, "%s.%s: a required argument has no default", d.Name, a.Name)
			assert.True(t, a.Bounds == nil || a.Type == domain.ArgInteger, "%s.%s: only integers have bounds", d.Name, a.Name)
			for _, l := range limits {
				what := fmt.Sprintf("%s.%s under max_rows=%d", d.Name, a.Name, l.MaxRows)
				v := a.Value(l)
				switch a.Type {
				case domain.ArgInteger:
					n, ok := v.(int)
					if assert.True(t, ok, "%s: default %T", what, v) {
						assert.NoError(t, a.Check(l, n), "%s: the default is out of bounds", what)
					}
				case domain.ArgBoolean:
					assert.IsType(t, false, v, what)
				case domain.ArgStrings:
					assert.IsType(t, []string(nil), v, what)
				default:
					assert.IsType(t, "", v, what)
				}
				if a.Bounds == nil {
					continue
				}
				lo, hi := a.Bounds(l)
				assert.NoError(t, a.Check(l, lo), what)
				assert.NoError(t, a.Check(l, hi), what)
				for _, bad := range []int{lo - 1, hi + 1} {
					err := a.Check(l, bad)
					assert.True(t, errors.Is(err, domain.ErrInvalidArgument), "%s: %d accepted", what, bad)
					if err != nil {
						assert.Contains(t, err.Error(), a.Name, what)
					}
				}
			}
		}
	}
	assert.Len(t, seen, 15)
}

func TestReadOnlyServersOfferTheReadTools(t *testing.T) {
	names := func(ts []domain.Tool) (out []string) {
		for _, d := range ts {
			out = append(out, d.Name)
		}
		return out
	}
	assert.Len(t, domain.OfferedTools(false, false), 15)
	assert.Equal(t, []string{domain.ToolReadQuery, domain.ToolListTables, domain.ToolDescribeTable, domain.ToolGetSchema, domain.ToolSearchText},
		names(domain.OfferedTools(true, false)))
	assert.Equal(t, []string{domain.ToolReadQuery, domain.ToolListTables, domain.ToolDescribeTable, domain.ToolGetSchema, domain.ToolSearchText,
		domain.ToolVerifyChain, domain.ToolGetResumeContext, domain.ToolSearchMemory}, names(domain.OfferedTools(true, true)))
}
