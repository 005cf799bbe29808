package domain

import (
	"encoding/hex"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// TSLayout is the time layout of every stored timestamp (events, checkpoints,
// query_log): UTC with second resolution, e.g. 2026-09-13T10:11:12Z
// (docs/decisions.md#timestamps-and-sessions).
const TSLayout = "2006-01-02T15:04:05Z"

// sessionLayout is the time part of a session id, e.g. 20260913T101100Z.
const sessionLayout = "20060102T150405Z"

// FormatTS spells t in UTC as [TSLayout], dropping sub-second digits.
func FormatTS(t time.Time) string {
	return t.UTC().Format(TSLayout)
}

// NewSessionID builds a server process's session id from its start time and
// two random bytes: "YYYYMMDDTHHMMSSZ-<4 lowercase hex>", for example
// 20260913T101100Z-3fa9 (docs/decisions.md#timestamps-and-sessions). The caller supplies the randomness so
// the id is reproducible in tests.
func NewSessionID(t time.Time, random [2]byte) string {
	var buf [len(sessionLayout) + 5]byte
	b := t.UTC().AppendFormat(buf[:0], sessionLayout)
	b = append(b, '-')
	b = hex.AppendEncode(b, random[:])
	return string(b)
}

// StripSpace removes leading and trailing whitespace the way Python's
// str.strip() does: the [unicode.IsSpace] set plus the information separators
// U+001C to U+001F, which Python counts as whitespace and Go does not. Event
// content, kinds and checkpoint summaries are stripped with it before they
// are hashed and stored, so the rule must match the reference exactly.
// Invalid UTF-8 bytes are never whitespace and are kept.
func StripSpace(s string) string {
	return strings.TrimFunc(s, isPythonSpace)
}

// isPythonSpace reports whether Python's str.isspace() holds for r.
func isPythonSpace(r rune) bool {
	if r < utf8.RuneSelf {
		switch r {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f:
			return true
		}
		return false
	}
	return unicode.IsSpace(r)
}

// DefaultKind is the event kind used when none, or only whitespace, is given.
const DefaultKind = "note"

// NormalizeKind applies the reference's `(kind or "note").strip() or "note"`:
// the kind is stripped with [StripSpace], and an empty result becomes
// [DefaultKind].
func NormalizeKind(kind string) string {
	if k := StripSpace(kind); k != "" {
		return k
	}
	return DefaultKind
}
