package domain

import "unicode/utf8"

// AppendJSONString appends s to dst as a JSON string literal, byte for byte
// as Python's json.dumps(s, ensure_ascii=False) spells it (docs/decisions.md#hash-chain):
// '"' and '\\' are backslash-escaped, LF, CR, TAB, BS and FF become \n, \r,
// \t, \b and \f, every other code point below U+0020 becomes \u00xx with
// lowercase hex, and everything else is copied raw as UTF-8: '/', U+007F,
// '<', '>', '&', U+2028, U+2029 and characters outside the BMP included.
//
// encoding/json cannot be used for this: it always escapes U+2028 and U+2029
// and, by default, '<', '>' and '&', which would change the hash-chain payload.
//
// A Python string can never hold invalid UTF-8, so the reference has no rule
// for it (its sqlite3 module refuses to read such a column at all). Each byte
// that is not part of a valid UTF-8 sequence is written as U+FFFD, the same
// choice encoding/json makes, so the output is always valid UTF-8. Encoded
// surrogates (ED A0 80 and the like) are invalid UTF-8 and are treated so.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // first byte of the pending run copied verbatim
	for i := 0; i < len(s); {
		// Hash-chain payloads are mostly hex digests, timestamps and plain
		// text, so plain ASCII is skipped eight bytes at a time.
		for i+8 <= len(s) && plainASCII(load64(s[i:i+8])) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if !jsonRaw[c] {
				dst = append(dst, s[start:i-1]...)
				dst = appendJSONEscape(dst, c)
				start = i
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			start = i + 1
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonRaw tells which ASCII bytes are written unchanged: all but '"', '\\'
// and the control characters below 0x20.
var jsonRaw = func() (raw [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		raw[c] = c != '"' && c != '\\'
	}
	return raw
}()

// load64 reads 8 bytes little-endian; the compiler turns it into one load.
func load64(b string) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// plainASCII reports whether all 8 bytes packed in x are ASCII that JSON
// leaves unchanged, testing them together with the "has less than" and "has
// zero byte" tricks of Bit Twiddling Hacks (both exact about whether any
// byte hits; only which byte would be unreliable, and that is not asked).
func plainASCII(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(ones*'"'), x^(ones*'\\')
	return ((x-ones*0x20)&^x| // a byte below 0x20
		(quote-ones)&^quote| // a '"'
		(backslash-ones)&^backslash| // a '\\'
		x)&highs == 0 // a byte of 0x80 or more
}

// appendJSONEscape appends the escape of an ASCII byte that cannot appear raw
// in a JSON string: '"', '\\' or a control character.
func appendJSONEscape(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	const hexDigits = "0123456789abcdef"
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}
