package regexp2

import (
	"strings"
	"testing"
	"regexp/syntax"
)

func TestScratch(t *testing.T) {
	for _, p := range []string{`a\d+`, `(?i)straße`, `\bcafé\b`, `[^\W\d]`, `x{2,3}?`, `(a|b)*c`, `.`} {
		text, err := rewrite(p)
		if err != nil { t.Log(p, err); continue }
		tree, err := syntax.Parse(text, syntax.Perl)
		if err != nil { t.Log(p, err); continue }
		var b strings.Builder
		emit(&b, tree)
		s := b.String()
		if len(s) > 300 { s = s[:300] + "..." }
		t.Logf("%s => %s", p, s)
	}
}
