package regexp2

import (
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// emit writes a parsed pattern as a regexp2 pattern that matches exactly
// what ripgrep matches. It leans on none of regexp2's own notions of
// character sets, case folding or anchors: every class is written out as
// explicit code point ranges, case-insensitive literals as their simple case
// folding orbit (Rust's rule; regexp2's IgnoreCase lower-cases instead and
// would miss 'ſ' for 's'), \b as lookarounds over Rust's Unicode \w, and ^ and
// $ as \A and \z (a search line holds no line break). Captures become
// non-capturing groups: only the overall match is reported.
func emit(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`(?!)`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				if orbit := foldOrbit(r); len(orbit) > 2 {
					writeClass(b, orbit)
					continue
				}
			}
			writeRune(b, r)
		}
	case syntax.OpCharClass:
		writeClass(b, re.Rune)
	case syntax.OpAnyCharNotNL:
		writeClass(b, []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune})
	case syntax.OpAnyChar:
		writeClass(b, []rune{0, unicode.MaxRune})
	case syntax.OpBeginLine, syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndLine, syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		w := wordClass()
		b.WriteString(`(?:(?<=` + w + `)(?!` + w + `)|(?<!` + w + `)(?=` + w + `))`)
	case syntax.OpNoWordBoundary:
		w := wordClass()
		b.WriteString(`(?:(?<=` + w + `)(?=` + w + `)|(?<!` + w + `)(?!` + w + `))`)
	case syntax.OpCapture:
		emitGroup(b, re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		emitGroup(b, re.Sub[0])
		b.WriteString(map[syntax.Op]string{syntax.OpStar: "*", syntax.OpPlus: "+", syntax.OpQuest: "?"}[re.Op])
		emitLazy(b, re)
	case syntax.OpRepeat:
		emitGroup(b, re.Sub[0])
		b.WriteString("{" + strconv.Itoa(re.Min))
		switch {
		case re.Max < 0:
			b.WriteString(",")
		case re.Max != re.Min:
			b.WriteString("," + strconv.Itoa(re.Max))
		}
		b.WriteString("}")
		emitLazy(b, re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			emit(b, sub)
		}
	case syntax.OpAlternate:
		b.WriteString("(?:")
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			emit(b, sub)
		}
		b.WriteString(")")
	}
}

// checkRepeats refuses a repetition (other than ?) of something that can
// match empty text, such as (a*)* or (|a)+: which match wins then differs
// between backtracking (regexp2) and automata engines, and even between
// ripgrep versions (Rust's regex changed it in 1.9).
func checkRepeats(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if (re.Op != syntax.OpRepeat || re.Max != 1) && nullable(re.Sub[0]) {
			return refuse(`a repeated group that can match empty text, such as (a*)* or (x|)+, is ambiguous; make what repeats consume at least one character, as in (a+)*`)
		}
	}
	for _, sub := range re.Sub {
		if err := checkRepeats(sub); err != nil {
			return err
		}
	}
	return nil
}

// nullable reports whether re can match the empty string.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !nullable(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if nullable(sub) {
				return true
			}
		}
		return false
	}
	return true // empty match, anchors, word boundaries, star, quest
}

func emitGroup(b *strings.Builder, re *syntax.Regexp) {
	b.WriteString("(?:")
	emit(b, re)
	b.WriteString(")")
}

func emitLazy(b *strings.Builder, re *syntax.Regexp) {
	if re.Flags&syntax.NonGreedy != 0 {
		b.WriteByte('?')
	}
}

// writeRune writes one code point so that regexp2 reads it as a literal in
// and out of classes: ASCII letters and digits as themselves, anything else
// as \x{...}.
func writeRune(b *strings.Builder, r rune) {
	if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
		b.WriteRune(r)
		return
	}
	b.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
}

// writeRanges writes sorted [lo, hi] pairs as class items: a-z\x{e9}.
func writeRanges(b *strings.Builder, ranges []rune) {
	for i := 0; i+1 < len(ranges); i += 2 {
		writeRune(b, ranges[i])
		if ranges[i+1] != ranges[i] {
			b.WriteByte('-')
			writeRune(b, ranges[i+1])
		}
	}
}

// writeClass writes a class of sorted [lo, hi] pairs; an empty one never
// matches. regexp2 checks explicit ranges one by one (and sorts them again
// for every range it parses), so a large class is written as its
// complement when that is cheaper, and as Unicode categories and
// properties plus a few explicit ranges (see [decompose]); regexp2 reads
// those names from the same Go unicode tables this package uses.
func writeClass(b *strings.Builder, ranges []rune) {
	if len(ranges) == 0 {
		b.WriteString(`(?!)`)
		return
	}
	form, negated := decompose(ranges), false
	if c := complement(ranges); len(c) == 0 { // every code point
		form = classForm{rest: []rune{0, unicode.MaxRune}}
	} else if len(c) < len(ranges) {
		// .NET subtracts after negating, so a negated form takes no exceptions.
		if neg := decompose(c); len(neg.except) == 0 && neg.cost() < form.cost() {
			form, negated = neg, true
		}
	}
	b.WriteByte('[')
	if negated {
		b.WriteByte('^')
	}
	for _, name := range form.names {
		b.WriteString(`\p{` + name + `}`)
	}
	writeRanges(b, form.rest)
	if len(form.except) > 0 {
		b.WriteString("-[")
		writeRanges(b, form.except)
		b.WriteByte(']')
	}
	b.WriteByte(']')
}

// foldOrbit returns the simple case folding orbit of r as [lo, hi] pairs.
func foldOrbit(r rune) []rune {
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	slices.Sort(orbit)
	pairs := make([]rune, 0, 2*len(orbit))
	for _, c := range orbit {
		pairs = append(pairs, c, c)
	}
	return pairs
}
