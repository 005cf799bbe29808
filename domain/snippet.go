package domain

import (
	"strings"
	"unicode/utf8"
)

// LineBreakMark stands for a line break inside a searched value: search lines
// never contain '\n', so "a\r\nb" is searched (and shown) as "a⏎b".
const LineBreakMark = "\u23ce"

// snippetCut marks a snippet that does not reach the edge of its line.
const snippetCut = "..."

// SearchLine turns one cell value into the line a text search sees: CRLF and
// CR become LF, every LF becomes [LineBreakMark], and every invalid UTF-8
// sequence becomes one '?' (a maximal invalid subpart counts once, as Python's
// and the WHATWG decoders count it). A value that needs none of this is
// returned unchanged, without copying.
func SearchLine(value string) string {
	if isSearchLine(value) {
		return value
	}
	var b strings.Builder
	b.Grow(len(value) + 8)
	for i := 0; i < len(value); {
		c := value[i]
		switch {
		case c == '\r':
			b.WriteString(LineBreakMark)
			i++
			if i < len(value) && value[i] == '\n' {
				i++
			}
		case c == '\n':
			b.WriteString(LineBreakMark)
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(value[i:])
			if r == utf8.RuneError && size <= 1 {
				b.WriteByte('?')
				i += invalidSubpart(value[i:])
				continue
			}
			b.WriteString(value[i : i+size])
			i += size
		}
	}
	return b.String()
}

// isSearchLine reports whether value is already a valid search line.
func isSearchLine(value string) bool {
	return strings.IndexByte(value, '\n') < 0 && strings.IndexByte(value, '\r') < 0 && utf8.ValidString(value)
}

// invalidSubpart returns the length of the maximal subpart of an ill-formed
// UTF-8 sequence at the start of s: the longest prefix that could still have
// begun a valid sequence, or one byte when none could (Unicode §3.9, U+FFFD
// substitution of maximal subparts).
func invalidSubpart(s string) int {
	lo, hi := byte(0x80), byte(0xBF)
	var need int
	switch lead := s[0]; {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead == 0xED:
		need, hi = 2, 0x9F
	case lead >= 0xE1 && lead <= 0xEF:
		need = 2
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead == 0xF4:
		need, hi = 3, 0x8F
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(s) {
		c := s[n]
		if n == 1 && (c < lo || c > hi) || n > 1 && (c < 0x80 || c > 0xBF) {
			break
		}
		n++
	}
	return n
}

// Snippet cuts the text around the match line[start:end] (byte offsets, as a
// [LineMatch] gives them): up to contextChars characters (code points, never
// bytes, so a UTF-8 sequence is never split) before start and after end.
// "..." is prepended when the snippet does not begin at the start of the line
// and appended when it does not reach its end. Offsets out of range are
// clamped, and offsets inside a character are widened to whole characters.
func Snippet(line string, start, end, contextChars int) string {
	start = min(max(start, 0), len(line))
	end = min(max(end, start), len(line))
	for start > 0 && start < len(line) && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	lo := start
	for n := 0; n < contextChars && lo > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(line[:lo])
		lo -= size
	}
	hi := end
	for n := 0; n < contextChars && hi < len(line); n++ {
		_, size := utf8.DecodeRuneInString(line[hi:])
		hi += size
	}
	var b strings.Builder
	b.Grow(hi - lo + 2*len(snippetCut))
	if lo > 0 {
		b.WriteString(snippetCut)
	}
	b.WriteString(line[lo:hi])
	if hi < len(line) {
		b.WriteString(snippetCut)
	}
	return b.String()
}
