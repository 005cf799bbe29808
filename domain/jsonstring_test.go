package domain_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestAppendJSONStringControlCharacters(t *testing.T) {
	t.Parallel()
	named := map[byte]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`}
	for c := byte(0); c < 0x20; c++ {
		want, ok := named[c]
		if !ok {
			want = fmt.Sprintf(`\u%04x`, c) // lowercase hex, as Python writes it
		}
		t.Run(fmt.Sprintf("U+%04X", c), func(t *testing.T) {
			t.Parallel()
			got := domain.AppendJSONString(nil, "a"+string(rune(c))+"b")
			assert.Equal(t, `"a`+want+`b"`, string(got))
		})
	}
}

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", `""`},
		{"plain ASCII", "hello world", `"hello world"`},
		{"double quote is escaped", `say "hi"`, `"say \"hi\""`},
		{"backslash is escaped", `a\b`, `"a\\b"`},
		{"slash stays raw", "a/b</c>", `"a/b</c>"`},
		{"DEL U+007F stays raw", "a\x7fb", "\"a\x7fb\""},
		{"HTML characters stay raw", "<script>&amp;</script>", `"<script>&amp;</script>"`},
		{"U+2028 and U+2029 stay raw", "a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"two-byte UTF-8 stays raw", "café", `"café"`},
		{"C1 controls stay raw", "\u0080\u009f", "\"\u0080\u009f\""},
		{"non-BMP stays raw, no surrogate pair", "😀 𝄞 𐍈", `"😀 𝄞 𐍈"`},
		{"BOM and noncharacters stay raw", "\ufeff\ufffe\uffff", "\"\ufeff\ufffe\uffff\""},
		{"escapes at both ends", "\"x\n", `"\"x\n"`},
		{"invalid byte becomes U+FFFD", "a\xffb", "\"a\uFFFDb\""},
		{"lone continuation byte becomes U+FFFD", "\x80", "\"\uFFFD\""},
		{"truncated sequence: one U+FFFD per byte", "a\xe2\x80", "\"a\uFFFD\uFFFD\""},
		{"encoded surrogate is invalid: one U+FFFD per byte", "\xed\xa0\x80", "\"\uFFFD\uFFFD\uFFFD\""},
		{"overlong encoding is invalid", "\xc0\xaf", "\"\uFFFD\uFFFD\""},
		{"invalid byte next to an escape", "\xff\n\xfe", "\"\uFFFD\\n\uFFFD\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(domain.AppendJSONString(nil, tt.in)))
		})
	}
}

// referenceJSONString is a plain, rune-by-rune statement of the rule, to
// check the optimised encoder against: ranging over a string yields U+FFFD
// for each byte outside a valid UTF-8 sequence.
func referenceJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestAppendJSONStringEveryPosition(t *testing.T) {
	t.Parallel()
	// The encoder skips eight plain bytes at a time: put each special byte
	// or sequence at every offset of a 24-byte string of plain ASCII.
	specials := map[string]string{
		"NUL": "\x00", "US": "\x1f", "LF": "\n", "space": " ", "quote": `"`, "backslash": `\`,
		"DEL": "\x7f", "é": "é", "U+2028": "\u2028", "emoji": "😀", "invalid 0xff": "\xff",
		"truncated": "\xe2\x80", "0x80": "\x80", "tilde": "~", "bang": "!",
	}
	for name, special := range specials {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for at := 0; at <= 24; at++ {
				s := strings.Repeat("a", at) + special + strings.Repeat("0", 24-at)
				assert.Equal(t, referenceJSONString(s), string(domain.AppendJSONString(nil, s)), "at offset %d", at)
			}
		})
	}
}

func TestAppendJSONStringAppendsToDst(t *testing.T) {
	t.Parallel()
	got := domain.AppendJSONString([]byte("[1,"), "x")
	assert.Equal(t, `[1,"x"`, string(got))
}

// FuzzAppendJSONString checks that any string encodes to valid UTF-8 JSON
// with no raw control characters, which decodes back to the input with each
// invalid byte replaced by U+FFFD ([]rune conversion does exactly that).
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "\u2028<&>", "😀", "\xff\xed\xa0\x80", "\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := domain.AppendJSONString(nil, s)
		require.True(t, utf8.Valid(out), "output is valid UTF-8")
		for _, c := range out {
			require.GreaterOrEqual(t, c, byte(0x20), "no raw control character")
		}
		assert.Equal(t, referenceJSONString(s), string(out))
		var back string
		require.NoError(t, json.Unmarshal(out, &back))
		assert.Equal(t, string([]rune(s)), back)
	})
}

func TestStripSpace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"ASCII whitespace", " \t\n\v\f\r x y \r\n", "x y"},
		{"U+001C to U+001F are Python whitespace", "\x1c\x1d\x1e\x1fx\x1f\x1c", "x"},
		{"U+0085 and U+00A0", "\u0085\u00a0x\u00a0", "x"},
		{"U+3000 ideographic space", "\u3000x\u3000", "x"},
		{"U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+1680", "\u2000\u200a\u2028x\u2029\u202f\u205f\u1680", "x"},
		{"zero width space and BOM are not whitespace", "\u200bx\ufeff", "\u200bx\ufeff"},
		{"U+001B and U+0000 are not whitespace", "\x1bx\x00", "\x1bx\x00"},
		{"inner whitespace is kept", "a \x1c\n b", "a \x1c\n b"},
		{"invalid UTF-8 is kept", " \xff ", "\xff"},
		{"all whitespace", " \x1c\u3000 ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, domain.StripSpace(tt.in))
		})
	}
}

func TestNormalizeKind(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"empty becomes note":          {"", "note"},
		"whitespace becomes note":     {" \x1f\u00a0", "note"},
		"kind is stripped":            {"  decision\n", "decision"},
		"inner space is kept":         {" session end ", "session end"},
		"case is kept":                {"Decision", "Decision"},
		"already normal kind is kept": {"note", "note"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, domain.NormalizeKind(tt.in))
		})
	}
}
