package regexp2

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// prefilter is a cheap test that every line regexp2 could match passes: a
// literal that any match must contain. Most lines of a selective search
// fail it and never reach regexp2, which is what keeps the engine within
// its budget of a ripgrep pipeline. It only ever skips lines, so it cannot
// change a result.
type prefilter struct {
	literal string // case-sensitive
	folded  []rune // case-insensitive, as canonical runes (see canonicalFold)
	first   string // every letter case of folded[0], for strings.IndexAny
}

// newPrefilter picks the longest literal the pattern requires, or returns
// nil when it requires none.
func newPrefilter(re *syntax.Regexp) *prefilter {
	var best *syntax.Regexp
	for _, lit := range requiredLiterals(re, nil) {
		if best == nil || len(lit.Rune) > len(best.Rune) {
			best = lit
		}
	}
	if best == nil {
		return nil
	}
	if best.Flags&syntax.FoldCase == 0 {
		return &prefilter{literal: string(best.Rune)}
	}
	folded := make([]rune, len(best.Rune))
	for i, r := range best.Rune {
		folded[i] = canonicalFold(r)
	}
	first := string(best.Rune[0])
	for f := unicode.SimpleFold(best.Rune[0]); f != best.Rune[0]; f = unicode.SimpleFold(f) {
		first += string(f)
	}
	return &prefilter{folded: folded, first: first}
}

// requiredLiterals appends the literals every match of re contains.
func requiredLiterals(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) > 0 {
			out = append(out, re)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			out = requiredLiterals(sub, out)
		}
	case syntax.OpCapture, syntax.OpPlus:
		out = requiredLiterals(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min > 0 {
			out = requiredLiterals(re.Sub[0], out)
		}
	}
	return out
}

// pass reports whether line may hold a match.
func (p *prefilter) pass(line string) bool {
	if p.folded == nil {
		return strings.Contains(line, p.literal)
	}
	for i := 0; i < len(line); {
		j := strings.IndexAny(line[i:], p.first)
		if j < 0 {
			return false
		}
		i += j
		_, size := utf8.DecodeRuneInString(line[i:])
		if p.foldedAt(line[i+size:]) {
			return true
		}
		i += size
	}
	return false
}

// foldedAt reports whether s starts with folded[1:], ignoring case.
func (p *prefilter) foldedAt(s string) bool {
	for _, want := range p.folded[1:] {
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 || canonicalFold(r) != want {
			return false
		}
		s = s[size:]
	}
	return true
}

// canonicalFold maps r to the smallest code point of its simple case
// folding orbit, so two runes match ignoring case exactly when their
// canonical runes are equal ('k', 'K' and the Kelvin sign all give 'K').
func canonicalFold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - ('a' - 'A')
		}
		return r
	}
	lowest := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		lowest = min(lowest, f)
	}
	return lowest
}
