// Package interop_test checks that memory chains cross between the Python
// reference server and ours in both directions (docs/decisions.md#reference-bytes and #hash-chain): a file the
// reference wrote verifies with our server, and events our server appends
// verify with the reference's rule.
//
// "The reference's rule" is re-implemented here, in this file, on purpose
// apart from package domain, so that a bug in our encoder cannot hide behind
// the same bug in the check:
//
//   - The payload comes from the standard library's encoding/json (with
//     SetEscapeHTML(false), so '<', '>' and '&' stay raw as Python leaves
//     them), followed by one post-processing step that un-escapes \u2028 and
//     \u2029, the only code points encoding/json still escapes where Python's
//     json.dumps(ensure_ascii=False) does not. domain.AppendJSONString is a
//     hand-written byte loop sharing no code with encoding/json.
//   - The chain walk (ids 1, 2, 3 ..., prev_hash links, recomputed hashes)
//     follows the reference's verify() (docs/decisions.md#hash-chain) line by line, on plain rows read with
//     database/sql.
//
// Before it is trusted, the re-implementation must reproduce every payload
// and hash of testdata/reference-chain.json (20 events hashed by Python
// 3.11's json.dumps, a copy of domain/testdata/reference-chain.json) and the
// two worked examples of docs/decisions.md#hash-chain.
package interop_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// genesis is the prev_hash of event 1: 64 zeros.
const genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// row is one memory_events row as stored.
type row struct {
	ID                                      int64
	TS, Session, Kind, Content, PrevHash, H string
}

// fixtureEvent is one event of testdata/reference-chain.json.
type fixtureEvent struct {
	ID         int64  `json:"id"`
	TS         string `json:"ts"`
	Session    string `json:"session"`
	Kind       string `json:"kind"`
	Content    string `json:"content"`
	PrevHash   string `json:"prev_hash"`
	PayloadHex string `json:"payload_hex"`
	Hash       string `json:"hash"`
}

// loadFixture reads the 20 reference events.
func loadFixture(t testing.TB) []fixtureEvent {
	t.Helper()
	b, err := os.ReadFile("testdata/reference-chain.json")
	require.NoError(t, err)
	var f struct {
		Genesis string         `json:"genesis"`
		Events  []fixtureEvent `json:"events"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.Equal(t, genesis, f.Genesis)
	require.Len(t, f.Events, 20)
	return f.Events
}

// pyPayload builds json.dumps([id,ts,session,kind,content,prev_hash],
// separators=(",",":"), ensure_ascii=False) the independent way described in
// the package comment.
func pyPayload(r row) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]any{r.ID, r.TS, r.Session, r.Kind, r.Content, r.PrevHash}); err != nil {
		panic(err) // a slice of an int and strings always encodes
	}
	return unescapeLineSeparators(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// unescapeLineSeparators turns the escapes \u2028 and \u2029 back into the raw
// characters. It reads escapes pairwise, so an escaped backslash followed by
// the text "u2028" (content holding a literal backslash-u) stays as it is.
func unescapeLineSeparators(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if esc := string(b[i+1 : min(i+6, len(b))]); esc == "u2028" || esc == "u2029" {
			r := rune(0x2028)
			if esc == "u2029" {
				r = 0x2029
			}
			out = utf8.AppendRune(out, r)
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

// pyHash is the lowercase hex SHA-256 of pyPayload.
func pyHash(r row) string { return sha256Hex(pyPayload(r)) }

// sha256Hex is the lowercase hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// pyVerify walks rows (in id order) as the reference's verify() does (docs/decisions.md#hash-chain) and returns
// the id of the first bad row and the reason, or 0 and "".
func pyVerify(rows []row) (breakAt int64, reason string) {
	expectedID, prev := int64(1), genesis
	for _, r := range rows {
		switch {
		case r.ID != expectedID:
			return r.ID, fmt.Sprintf("id gap: expected event %d, found %d (rows were deleted or renumbered)", expectedID, r.ID)
		case r.PrevHash != prev:
			return r.ID, fmt.Sprintf("prev_hash does not match the hash of event %d", r.ID-1)
		case r.H != pyHash(r):
			return r.ID, "stored hash does not match the recomputed hash (content or metadata was altered)"
		}
		expectedID, prev = expectedID+1, r.H
	}
	return 0, ""
}

func TestIndependentRuleReproducesTheReferenceFixture(t *testing.T) {
	var rows []row
	for _, e := range loadFixture(t) {
		r := row{e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash}
		want, err := hex.DecodeString(e.PayloadHex)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(pyPayload(r)), "event %d payload", e.ID)
		assert.Equal(t, e.Hash, sha256Hex(want), "event %d: the fixture's hash is sha256(payload)", e.ID)
		assert.Equal(t, e.Hash, pyHash(r), "event %d hash", e.ID)
		rows = append(rows, r)
	}
	breakAt, reason := pyVerify(rows)
	assert.Zero(t, breakAt, reason)
}

func TestIndependentRuleReproducesTheWorkedExamples(t *testing.T) {
	const session = "20260913T101100Z-3fa9"
	ex1 := row{1, "2026-09-13T10:11:12Z", session, "note", "hello world", genesis, ""}
	assert.Equal(t, `[1,"2026-09-13T10:11:12Z","20260913T101100Z-3fa9","note","hello world","`+genesis+`"]`, string(pyPayload(ex1)))
	assert.Equal(t, "f4a4ee18857837ec4dd5f406a52841a34e82da2cd871dcce1cf1175d3def4aa7", pyHash(ex1))

	content := "café \"quoted\" \\ back\nline\ttab \u2028 <&> \x01 \x7f é😀"
	ex2 := row{2, "2026-09-13T10:11:13Z", session, "decision", content, pyHash(ex1), ""}
	assert.Equal(t, "5b322c22323032362d30392d31335431303a31313a31335a222c223230323630393133543130313130305a2d33666139222c226465636973696f6e222c22636166c3a9205c2271756f7465645c22205c5c206261636b5c6e6c696e655c7474616220e280a8203c263e205c7530303031207f20c3a9f09f9880222c2266346134656531383835373833376563346464356634303661353238343161333465383264613263643837316463636531636631313735643364656634616137225d",
		hex.EncodeToString(pyPayload(ex2)))
	assert.Equal(t, "c5325acf3553293c31e680ff7f7040c8d4f69a2294ef7fa568db41845d8b501f", pyHash(ex2))

	small := row{1, "t", "s", "note", "c", genesis, ""}
	assert.Equal(t, "7dcdbac0adfef20ad4c95d5c13d6c2d2b9b380b90dc0212e3c6724e9005a2d2f", pyHash(small))
}

func TestUnescapeLineSeparators(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"line separator", `"a\u2028b"`, "\"a\u2028b\""},
		{"paragraph separator", `"\u2029"`, "\"\u2029\""},
		{"escaped backslash before u2028 text", `"\\u2028"`, `"\\u2028"`},
		{"other escapes untouched", `"\u0001\n\"\\"`, `"\u0001\n\"\\"`},
		{"trailing backslash", `\`, `\`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, string(unescapeLineSeparators([]byte(c.in))), c.name)
	}
}

func TestIndependentRuleFindsTheFirstBreak(t *testing.T) {
	var rows []row
	for _, e := range loadFixture(t)[:4] {
		rows = append(rows, row{e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash})
	}
	altered := append([]row(nil), rows...)
	altered[2].Content += "!"
	relinked := append([]row(nil), rows...)
	relinked[3].PrevHash = genesis
	cases := []struct {
		name    string
		rows    []row
		breakAt int64
		reason  string
	}{
		{"altered content", altered, 3, "stored hash does not match the recomputed hash (content or metadata was altered)"},
		{"altered prev_hash", relinked, 4, "prev_hash does not match the hash of event 3"},
		{"gap", append(append([]row(nil), rows[:1]...), rows[2:]...), 3, "id gap: expected event 2, found 3 (rows were deleted or renumbered)"},
	}
	for _, c := range cases {
		breakAt, reason := pyVerify(c.rows)
		assert.Equal(t, c.breakAt, breakAt, c.name)
		assert.Equal(t, c.reason, reason, c.name)
	}
}
