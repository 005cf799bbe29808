package domain

import "unicode/utf8"

// CutSearchLine shortens a search line (see [SearchLine]) to at most max
// bytes, at a character boundary, and reports whether it cut anything.
// Values longer than max are searched in their head only: a regex engine's
// memory and time grow with the line (ripgrep lists every submatch of it,
// a backtracking engine keeps a stack as long as a repetition's match), so
// the head bounds both for every engine alike, and the result says which
// values were cut.
func CutSearchLine(line string, max int) (string, bool) {
	if max <= 0 || len(line) <= max {
		return line, false
	}
	end := max
	for end > 0 && !utf8.RuneStart(line[end]) {
		end--
	}
	return line[:end], true
}
