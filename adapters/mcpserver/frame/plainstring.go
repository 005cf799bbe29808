package frame

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// plainString is the string a JSON string value holds when it is written
// plainly: quoted, no escape, no control character, valid UTF-8; ok is
// false for anything else (another type, escapes, invalid UTF-8, which
// encoding/json would replace). Such a string's value is its bytes between
// the quotes, so decoding it needs no decoder: the guard and the argument
// decoding read method names, tool names and queries this way, and give
// every other value to encoding/json as before.
func plainString(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') >= 0 || bytes.IndexByte(in, '"') >= 0 || !utf8.Valid(in) {
		return "", false
	}
	for _, c := range in {
		if c < 0x20 {
			return "", false
		}
	}
	return string(in), true
}

// unmarshalString decodes a JSON string into s as json.Unmarshal does,
// plain strings without it (plainString).
func unmarshalString(raw []byte, s *string) error {
	if v, ok := plainString(raw); ok {
		*s = v
		return nil
	}
	return json.Unmarshal(raw, s)
}
