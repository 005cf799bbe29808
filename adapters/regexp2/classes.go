package regexp2

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// classState tracks what precedes the current item inside a bracket class,
// so that a set (\d, \p{L}, [:alpha:]) is never used as a range endpoint,
// which Rust refuses and Go would read as a literal '-'.
type classState struct {
	text      strings.Builder
	items     int  // items so far
	afterDash bool // the previous item is a '-' that follows another item
}

// checkSetInClass refuses a set that would be a range endpoint.
func (w *rewriter) checkSetInClass(cs *classState) error {
	if cs == nil {
		return nil
	}
	end := w.setEnd()
	if cs.afterDash || end+1 < len(w.src) && w.src[end] == '-' && w.src[end+1] != ']' {
		return refuse(`a class such as \d, \p{L} or [:alpha:] cannot be a range endpoint; escape the dash as \- or put it last in the class`)
	}
	cs.items++
	return nil
}

// setEnd returns where the set starting at pos (\d, \pL, \p{..}, [:..:]) ends.
func (w *rewriter) setEnd() int {
	rest := w.src[w.pos:]
	switch {
	case strings.HasPrefix(rest, "[:"):
		if i := strings.Index(rest, ":]"); i >= 0 {
			return w.pos + i + 2
		}
	case len(rest) >= 3 && (rest[1] == 'p' || rest[1] == 'P') && rest[2] == '{':
		if i := strings.IndexByte(rest, '}'); i >= 0 {
			return w.pos + i + 1
		}
	case len(rest) >= 3 && (rest[1] == 'p' || rest[1] == 'P'):
		_, size := utf8.DecodeRuneInString(rest[2:])
		return w.pos + 2 + size
	}
	return min(w.pos+2, len(w.src))
}

// property copies \pX or \p{Name} when Name is a general category, which
// ripgrep and Go read alike; scripts (ripgrep reads them as script
// extensions) and binary properties (Go has none) are refused.
func (w *rewriter) property(b *strings.Builder) error {
	end := w.setEnd()
	seq := w.src[w.pos:end]
	name := strings.TrimSuffix(strings.TrimPrefix(seq[2:], "{"), "}")
	switch {
	case strings.HasPrefix(name, "^"):
		return refuse(`write \P{%s} instead of \p{^%s}`, name[1:], name[1:])
	case propertyNames()[canonicalName(name)] == scriptName:
		return refuse(`Unicode scripts such as \p{%s} are not supported by the built-in search engine; use a general category such as \p{L}, or list the characters as a range such as [\x{370}-\x{3FF}]`, name)
	case !isCategory(name):
		return refuse(`the Unicode property %s is not supported; use a general category such as \p{L}, \p{Lu}, \p{Nd}, \p{P} or \p{Any}`, seq)
	}
	if err := checkClass(seq); err != nil { // \P{Any}: ripgrep refuses it even inside a class
		return err
	}
	b.WriteString(seq)
	w.pos = end
	return nil
}

// class rewrites one bracket class and checks that ripgrep accepts it:
// ripgrep refuses an empty class and a class of only '\n'.
func (w *rewriter) class() error {
	cs := &classState{}
	w.copyN(&cs.text, 1)
	if w.pos < len(w.src) && w.src[w.pos] == '^' {
		w.copyN(&cs.text, 1)
	}
	if w.pos < len(w.src) && w.src[w.pos] == ']' {
		cs.text.WriteString(`\]`) // a leading ']' is literal in both syntaxes
		w.pos++
		cs.items++
	}
	for closed := false; !closed && w.pos < len(w.src); {
		c := w.src[w.pos]
		next := byte(0)
		if w.pos+1 < len(w.src) {
			next = w.src[w.pos+1]
		}
		switch {
		case c == ']':
			w.copyN(&cs.text, 1)
			closed = true
		case c == '[' && next == ':':
			if err := w.posixClass(cs); err != nil {
				return err
			}
		case c == '[':
			return refuse(`nested character classes such as [a[bc]] are not supported; write one flat class such as [abc], and escape a literal [ as \[`)
		case (c == '&' || c == '-' || c == '~') && next == c:
			return refuse(`class set operations (&&, --, ~~) are not supported; list the characters in one class, or escape a literal as \%c`, c)
		case c == '\\':
			if err := w.escape(cs); err != nil {
				return err
			}
		case c == '-':
			cs.afterDash = cs.items > 0
			cs.items++
			w.copyN(&cs.text, 1)
		default:
			cs.afterDash = false
			cs.items++
			w.copyRune(&cs.text)
		}
	}
	text := cs.text.String()
	if err := checkClass(text); err != nil {
		return err
	}
	w.out.WriteString(text)
	return nil
}

// posixClass copies [:alpha:] and friends (ASCII in both syntaxes).
func (w *rewriter) posixClass(cs *classState) error {
	end := w.setEnd()
	name := strings.TrimPrefix(strings.TrimSuffix(w.src[w.pos:end], ":]"), "[:")
	if !posixNames[strings.TrimPrefix(name, "^")] {
		return refuse(`nested character classes are not supported and [:%s:] is not a POSIX class; escape a literal [ as \[`, name)
	}
	if err := w.checkSetInClass(cs); err != nil {
		return err
	}
	w.copyN(&cs.text, end-w.pos)
	return nil
}

var posixNames = map[string]bool{
	"alnum": true, "alpha": true, "ascii": true, "blank": true, "cntrl": true, "digit": true, "graph": true,
	"lower": true, "print": true, "punct": true, "space": true, "upper": true, "word": true, "xdigit": true,
}

// checkClass refuses a class ripgrep refuses: one that matches nothing, or
// only a line break (which no search line contains).
func checkClass(text string) error {
	re, err := syntax.Parse(text, syntax.Perl)
	if err != nil {
		return nil // the whole pattern's parse reports it
	}
	switch {
	case re.Op == syntax.OpNoMatch, re.Op == syntax.OpCharClass && len(withoutSurrogates(re.Rune)) == 0:
		return refuse(`a character class in the pattern matches no character (such as \P{Any} or [^\s\S]); ripgrep refuses empty classes`)
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1 && re.Rune[0] == '\n',
		re.Op == syntax.OpCharClass && len(re.Rune) == 2 && re.Rune[0] == '\n' && re.Rune[1] == '\n':
		return domain.LineBreakError()
	}
	return nil
}

// canonicalName folds a property name the way Go's regexp/syntax looks it
// up (and ripgrep matches names loosely too): spaces, underscores and
// hyphens dropped, the first letter upper case and the rest lower case.
func canonicalName(name string) string {
	b := make([]byte, 0, len(name))
	for i := range len(name) {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case len(b) == 0 && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		case len(b) > 0 && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// Kinds of \p{...} names.
const (
	unknownName = iota
	categoryName
	scriptName
)

// propertyNames maps canonical \p names to their kind. Only general
// categories (and Any, Assigned, ASCII) resolve to the same set in ripgrep
// and Go; ripgrep reads a script name as Script_Extensions, Go as Script.
var propertyNames = sync.OnceValue(func() map[string]int {
	m := map[string]int{"Any": categoryName, "Assigned": categoryName, "Ascii": categoryName, "Lc": categoryName}
	for name := range unicode.Scripts {
		m[canonicalName(name)] = scriptName
	}
	for name := range unicode.Categories {
		m[canonicalName(name)] = categoryName
	}
	for alias := range unicode.CategoryAliases {
		m[canonicalName(alias)] = categoryName
	}
	return m
})

// isCategory reports whether name is a general category (or Any, Assigned,
// ASCII) that Go's parser also finds.
func isCategory(name string) bool {
	c := canonicalName(name)
	if propertyNames()[c] != categoryName {
		return false
	}
	_, err := syntax.Parse(`\p{`+name+`}`, syntax.Perl)
	return err == nil
}
