package domain

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// TerminalSafe returns s with every character that could drive or deceive
// a terminal spelled out in a visible escaped form, so that text an agent
// wrote (a query, an event, a cell, an error, a file name) can be printed
// for a person: it cannot move the cursor, erase a line, ring the bell,
// retitle the window, reorder what follows, or hide text.
//
// Newline and tab are kept. Escaped as \uXXXX: the C0 controls (ESC, CR,
// BEL, ...), DEL, the C1 controls (U+0080-U+009F, among them U+009B, a
// one-byte CSI on many terminals), the bidirectional controls (U+061C,
// U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), the line and paragraph
// separators U+2028 and U+2029, and the invisible characters that hide text
// or smuggle it past a reader (U+200B, U+2060-U+2064, U+206A-U+206F,
// U+FEFF, U+FFF9-U+FFFB, and the tag characters U+E0000-U+E007F, written
// as a UTF-16 surrogate pair). Each byte of invalid UTF-8 is escaped as
// \xNN. Joiners (U+200C, U+200D), variation selectors and the soft hyphen
// are kept: emoji and several scripts need them, and they move nothing.
//
// The \u form is JSON's own, and encoding/json never emits a raw C0 control
// or invalid UTF-8, so applying TerminalSafe to a JSON document gives a
// document that decodes to exactly the same values: --json output stays
// exact and is safe on a terminal too. A backslash is not escaped, so a
// literal "\u001b" in the text and an escaped ESC look alike; neither
// drives the terminal.
func TerminalSafe(s string) string {
	i := firstUnsafe(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !terminalUnsafe(r):
			b.WriteString(s[i : i+size])
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte TerminalSafe would change, or
// len(s): most text has none, and is returned as it is.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || terminalUnsafe(r) {
			return i
		}
		i += size
	}
	return len(s)
}

// terminalUnsafe reports whether TerminalSafe escapes the rune r.
func terminalUnsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true // C0, DEL, C1
	case r < 0x061c:
		return false
	}
	switch r {
	case 0x061c, 0x200b, 0x200e, 0x200f, 0x2028, 0x2029, 0xfeff:
		return true
	}
	return r >= 0x202a && r <= 0x202e || r >= 0x2060 && r <= 0x2064 || r >= 0x2066 && r <= 0x206f ||
		r >= 0xfff9 && r <= 0xfffb || r >= 0xe0000 && r <= 0xe007f
}
