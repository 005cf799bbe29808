package domain

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// FormatFloat spells f the way Python's repr(float) does, so a REAL renders
// the same bytes as in the reference server: the shortest digits that round
// trip, a ".0" on integral values, exponent notation when the decimal
// exponent is below -4 or at least 16, and a signed exponent of at least two
// digits. Examples: 2.0, 1e+16, 0.0001, 1e-05, inf, -inf, nan, -0.0.
func FormatFloat(f float64) string {
	var buf [32]byte
	return string(appendFloat(buf[:0], f))
}

// appendFloat appends the [FormatFloat] spelling of f to dst.
func appendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	// Integral values below 2^53 are exact and no shorter digit string
	// rounds to them, so their repr is the integer itself plus ".0". This is
	// the common case for REAL columns and skips the shortest-digits search.
	if f == math.Trunc(f) && f != 0 && math.Abs(f) < 1<<53 {
		dst = strconv.AppendInt(dst, int64(f), 10)
		return append(dst, '.', '0')
	}
	// Go's 'e' format with precision -1 yields the same shortest digits as
	// Python's repr, already spelled "d.ddde±XX"; only the choice between
	// positional and exponent notation needs Python's rule.
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	mark := len(e) - 4 // "e+XX"
	for e[mark] != 'e' {
		mark--
	}
	exp := 0
	for _, c := range e[mark+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[mark+1] == '-' {
		exp = -exp
	}
	if exp < -4 || exp >= 16 {
		return append(dst, e...)
	}
	mant := e[:mark]
	lead, rest := mant[0], []byte(nil)
	if len(mant) > 2 {
		rest = mant[2:] // digits after "d."
	}
	if exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > exp; i-- {
			dst = append(dst, '0')
		}
		dst = append(dst, lead)
		return append(dst, rest...)
	}
	dst = append(dst, lead)
	if len(rest) <= exp {
		dst = append(dst, rest...)
		for i := len(rest); i < exp; i++ {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	}
	dst = append(dst, rest[:exp]...)
	dst = append(dst, '.')
	return append(dst, rest[exp:]...)
}

// FormatCell renders one result value as CSV cell text, before CSV quoting:
// nil is "", integers and bools are decimal (true is 1), floats use
// [FormatFloat], strings are kept as they are and a []byte becomes
// "<blob N bytes>". Text longer than maxChars Unicode code points is cut to
// its first maxChars code points followed by "...[+<excess> chars]", and cut
// reports that. Each invalid UTF-8 byte counts as one code point and is kept
// as it is. Blobs are never cut. A negative maxChars counts as 0.
func FormatCell(v any, maxChars int) (text string, cut bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		keep, excess := cutPoint(x, maxChars)
		if excess == 0 {
			return x, false
		}
		return string(appendCutMark([]byte(x[:keep]), excess)), true
	case []byte:
		return string(appendBlob(nil, len(x))), false
	case Blob:
		return string(appendBlob(nil, int(x))), false
	case LongText:
		keep, excess := x.cut(maxChars)
		if excess == 0 {
			return x.Head, false
		}
		return string(appendCutMark([]byte(x.Head[:keep]), excess)), true
	}
	var buf [32]byte
	if b, ok := appendScalar(buf[:0], v); ok {
		return string(b), false
	}
	return FormatCell(fmt.Sprint(v), maxChars)
}

// appendScalar appends the spelling of a number or bool and reports whether
// v was one. None of these spellings ever needs CSV quoting.
func appendScalar(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case float64:
		return appendFloat(dst, x), true
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case bool:
		if x {
			return append(dst, '1'), true
		}
		return append(dst, '0'), true
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), true
	case uint64:
		return strconv.AppendUint(dst, x, 10), true
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case float32:
		return appendFloat(dst, float64(x)), true
	}
	return dst, false
}

// cutPoint returns how many bytes of s to keep and how many code points are
// cut away; excess is 0 when s fits in maxChars code points.
func cutPoint(s string, maxChars int) (keep, excess int) {
	if maxChars < 0 {
		maxChars = 0
	}
	// A code point takes at least one byte, so short text never needs the
	// rune count: this is the common case and costs nothing.
	if len(s) <= maxChars {
		return len(s), 0
	}
	total := utf8.RuneCountInString(s)
	if total <= maxChars {
		return len(s), 0
	}
	for n := 0; n < maxChars; n++ {
		if s[keep] < utf8.RuneSelf {
			keep++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[keep:])
		keep += size
	}
	return keep, total - maxChars
}

// cut is [cutPoint] for a value of which only Head was read: the excess
// counts the code points never read as well.
func (x LongText) cut(maxChars int) (keep, excess int) {
	keep, _ = cutPoint(x.Head, maxChars)
	return keep, x.Chars - utf8.RuneCountInString(x.Head[:keep])
}

// appendCutMark appends the "...[+<excess> chars]" marker of a cut cell.
func appendCutMark(dst []byte, excess int) []byte {
	dst = append(dst, "...[+"...)
	dst = strconv.AppendInt(dst, int64(excess), 10)
	return append(dst, " chars]"...)
}

// appendBlob appends the "<blob N bytes>" stand-in for a BLOB of n bytes.
func appendBlob(dst []byte, n int) []byte {
	dst = append(dst, "<blob "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, " bytes>"...)
}
