package contract_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/stretchr/testify/assert"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

func TestScratchRandom(t *testing.T) {
	rg := mustFindRg(t)
	e1, e2 := ripgrep.New(rg), regexp2.New()
	atoms := []string{`a`, `é`, `\w`, `\W`, `\d`, `\s`, `\S`, `.`, `\b`, `\B`, `^`, `$`, `[a-z]`, `[^a-z]`, `\p{L}`, `\pN`, `[[:alpha:]]`, `σ`, `k`, `s`, `ß`, `(?i)`, `(?-i)`, ` `, `o`, `e`, `⏎`, `\x{e9}`, `[\w-]`, `[^\s\d]`, `K`, `ǅ`, `µ`, `Σ`}
	ops := []string{``, `*`, `+`, `?`, `*?`, `+?`, `??`, `{2}`, `{1,3}`, `{0,2}?`}
	r := rand.New(rand.NewPCG(1, 2))
	refused, agree := 0, 0
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		k := 1 + r.IntN(4)
		for i := 0; i < k; i++ {
			switch r.IntN(6) {
			case 0:
				b.WriteString("(" + atoms[r.IntN(len(atoms))] + "|" + atoms[r.IntN(len(atoms))] + ")")
			case 1:
				b.WriteString("(?:" + atoms[r.IntN(len(atoms))] + atoms[r.IntN(len(atoms))] + ")")
			default:
				b.WriteString(atoms[r.IntN(len(atoms))])
			}
			b.WriteString(ops[r.IntN(len(ops))])
		}
		q := domain.SearchQuery{Pattern: b.String(), IgnoreCase: r.IntN(3) == 0}
		want, werr := collect(e1, q)
		got, gerr := collect(e2, q)
		if gerr != nil && werr == nil {
			if refused < 400 { t.Logf("REFUSED %q: %v", q.Pattern, gerr) }
			refused++
			continue
		}
		if werr != nil || gerr != nil {
			if (werr == nil) != (gerr == nil) {
				t.Errorf("%q ic=%v: rg err %v, regexp2 err %v", q.Pattern, q.IgnoreCase, werr, gerr)
			}
			continue
		}
		agree++
		assert.Equal(t, want, got, "%q ic=%v", q.Pattern, q.IgnoreCase)
	}
	t.Logf("agree %d refused-by-regexp2-only %d", agree, refused)
}

func collect(e ports.TextSearcher, q domain.SearchQuery) ([]domain.LineMatch, error) {
	var got []domain.LineMatch
	err := e.Search(context.Background(), q, slices.Values(corpus), func(m domain.LineMatch) error { got = append(got, m); return nil })
	return got, err
}
