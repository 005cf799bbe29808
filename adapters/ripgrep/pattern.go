package ripgrep

import (
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// perLine adapts a regex to one-line-per-value searching. ripgrep finds the
// matching line correctly for a text anchor (\A, or ^ under (?-m)), but then
// looks for the match offsets relative to the whole input, so every line
// after the first comes back with no offsets. Per line, \A means ^ (ripgrep
// runs with multi-line anchors), so it is rewritten; (?-m) is refused.
// Escapes and bracket classes (nested, as Rust allows) are skipped.
func perLine(pattern string) (string, error) {
	var b strings.Builder
	depth := 0       // bracket class nesting
	classStart := -1 // index right after the '[' or '[^' that opened the class
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			if depth == 0 && pattern[i+1] == 'A' {
				b.WriteByte('^')
			} else {
				b.WriteString(pattern[i : i+2])
			}
			i++
			continue
		case c == '[':
			if depth > 0 && strings.HasPrefix(pattern[i:], "[:") {
				if end := strings.Index(pattern[i:], ":]"); end > 0 {
					b.WriteString(pattern[i : i+end+2])
					i += end + 1
					continue
				}
			}
			depth++
			classStart = i + 1
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				classStart++
			}
		case c == ']' && depth > 0 && i != classStart:
			depth--
		case c == '(' && depth == 0 && strings.HasPrefix(pattern[i:], "(?"):
			if turnsOffMultiLine(pattern[i+2:]) {
				return "", domain.Errorf(domain.ErrInvalidArgument,
					"unsupported regex: (?-m) is not supported; ^ and $ already match at the start and end of each value's line")
			}
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// turnsOffMultiLine reports whether the flags of (?flags) or (?flags:
// clear the m flag.
func turnsOffMultiLine(rest string) bool {
	negated := false
	for _, c := range rest {
		switch {
		case c == '-':
			negated = true
		case c == 'm' && negated:
			return true
		case c < 'A' || c > 'z':
			return false
		}
	}
	return false
}
