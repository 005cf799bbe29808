package domain

import "unicode/utf8"

// Blob stands for a BLOB value of that many bytes. Tools never show a
// blob's bytes (a cell reads `<blob N bytes>`), so adapters need not copy
// them out of SQLite.
type Blob int

// LongText stands for a TEXT value read only in part, so that a cell the
// cell cap will cut is never copied whole out of SQLite (memory stays flat:
// docs/decisions.md#performance-budgets). Head is the value's beginning, at least as many code points
// as the cap; Chars is the whole value's length in code points, each
// invalid UTF-8 byte counting as one, as in [FormatCell]. Build it with
// [TextHead].
type LongText struct {
	Head  string
	Chars int
}

// TextHead returns the LongText of text when text is longer than maxChars
// code points: its first maxChars code points (copied) and its length.
// Otherwise it reports false and the caller keeps text whole. text may
// alias memory that is reused afterwards; nothing of it is retained.
func TextHead(text []byte, maxChars int) (LongText, bool) {
	if maxChars < 0 || len(text) <= maxChars {
		return LongText{}, false
	}
	total := utf8.RuneCount(text)
	if total <= maxChars {
		return LongText{}, false
	}
	keep := 0
	for n := 0; n < maxChars; n++ {
		if text[keep] < utf8.RuneSelf {
			keep++
			continue
		}
		_, size := utf8.DecodeRune(text[keep:])
		keep += size
	}
	return LongText{Head: string(text[:keep]), Chars: total}, true
}
