package domain_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func ExampleTerminalSafe() {
	// A query whose comment moves the cursor up, erases the line and
	// returns the carriage: printed as it is, it would hide the line
	// above it on the person's screen.
	fmt.Println(domain.TerminalSafe("SELECT 1 -- \x1b[1A\x1b[2K\r#41 ok\n\tnext line"))
	fmt.Println(domain.TerminalSafe("invoice\u202Efdp.exe"))
	// Output:
	// SELECT 1 -- \u001b[1A\u001b[2K\u000d#41 ok
	// 	next line
	// invoice\u202efdp.exe
}

func TestTerminalSafe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain text is kept", "SELECT * FROM t WHERE a = 'é' -- 日本", "SELECT * FROM t WHERE a = 'é' -- 日本"},
		{"newline and tab are kept", "a\n\tb", "a\n\tb"},
		{"ESC", "\x1b[2J", `\u001b[2J`},
		{"CR", "a\rb", `a\u000db`},
		{"BEL", "\a", `\u0007`},
		{"NUL and backspace", "\x00\b", `\u0000\u0008`},
		{"DEL", "\x7f", `\u007f`},
		{"C1 CSI", "\u009b2J", `\u009b2J`},
		{"C1 OSC retitles the window", "\u009d0;pwned\u009c", `\u009d0;pwned\u009c`},
		{"NEL", "\u0085", `\u0085`},
		{"bidi override", "a\u202eb\u202c", `a\u202eb\u202c`},
		{"bidi embeddings", "\u202a\u202b\u202d", `\u202a\u202b\u202d`},
		{"bidi isolates", "\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		{"bidi marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"line and paragraph separators", "\u2028\u2029", `\u2028\u2029`},
		{"invisible characters", "\u200b\u2060\u2064\ufeff\ufff9", `\u200b\u2060\u2064\ufeff\ufff9`},
		{"deprecated format characters", "\u206a\u206f", `\u206a\u206f`},
		{"tag characters smuggle text", "hi\U000E0041\U000E007F", `hi\udb40\udc41\udb40\udc7f`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"joiners and emoji are kept", "👩\u200d💻 \u200c ❤\ufe0f soft\u00adhyphen", "👩\u200d💻 \u200c ❤\ufe0f soft\u00adhyphen"},
		{"a backslash is kept", `C:\dir\x1b`, `C:\dir\x1b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, domain.TerminalSafe(tc.in))
		})
	}
}

func TestTerminalSafeKeepsJSONExact(t *testing.T) {
	t.Parallel()
	// Every character the printer escapes, inside a JSON document.
	v := map[string]string{"text": "\x1b[1A\r\a\x7f\u009b\u202e\u2066\u2028\u200b\ufeff\U000E0041 ok \u200d 日本"}
	doc, err := json.Marshal(v)
	require.NoError(t, err)
	safe := domain.TerminalSafe(string(doc))
	var back map[string]string
	require.NoError(t, json.Unmarshal([]byte(safe), &back), safe)
	assert.Equal(t, v, back, "the escaped document decodes to the same values")
	assert.Equal(t, safe, domain.TerminalSafe(safe), "escaped text has nothing left to escape")
}

func FuzzTerminalSafe(f *testing.F) {
	f.Add("\x1b[1A\r\u009b\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := domain.TerminalSafe(s)
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r == 0x202e || r == 0x2066 {
				t.Fatalf("TerminalSafe(%q) = %q holds %U", s, out, r)
			}
		}
		if out != domain.TerminalSafe(out) {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}
