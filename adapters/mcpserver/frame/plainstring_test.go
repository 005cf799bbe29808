package frame

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// unmarshalString must read every input exactly as json.Unmarshal does.
func TestUnmarshalStringMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		`"read_query"`, `"tools/call"`, `""`, `"SELECT * FROM t WHERE a = 'x'"`, `"héllo ✓"`,
		`"a\"b"`, `"a\\b"`, `"\u0041"`, `"a\nb"`, "\"a\tb\"", "\"a\x01b\"", "\"\xff\"", "\"\xe2\x80\xa8\"",
		`"a"b"`, `"`, `"abc`, `abc"`, `null`, `1`, `true`, `{}`, `[]`, ``, ` "a"`, `"a" `,
	}
	for _, in := range inputs {
		var want, got string
		wantErr := json.Unmarshal([]byte(in), &want)
		gotErr := unmarshalString([]byte(in), &got)
		assert.Equal(t, wantErr != nil, gotErr != nil, "error for %q", in)
		assert.Equal(t, want, got, "value for %q", in)
	}
}

func FuzzUnmarshalString(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\"b"`, "\"\xff\"", `null`, "\"\x00\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want, got string
		wantErr := json.Unmarshal(in, &want)
		gotErr := unmarshalString(in, &got)
		if (wantErr != nil) != (gotErr != nil) || want != got {
			t.Fatalf("%q: encoding/json %q (%v), unmarshalString %q (%v)", in, want, wantErr, got, gotErr)
		}
	})
}
