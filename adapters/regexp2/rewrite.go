package regexp2

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// rewrite turns a ripgrep pattern (Rust regex syntax) into Go regexp/syntax
// text with exactly ripgrep's meaning, or refuses it. Go's syntax is close
// to Rust's, but not equal, so before Go's parser sees the pattern:
//   - \d, \w and \s (ASCII in Go, Unicode in Rust) become explicit Unicode
//     ranges;
//   - \u and \U escapes (Rust only) become \x{...};
//   - every construct that Go reads differently from Rust (nested classes,
//     class set operations, a bare '{', \Q...\E, octal escapes, scripts in
//     \p{...}) or that ripgrep handles per buffer rather than per line
//     ((?-m), a line break) is refused with a message saying what to write.
//
// Go then parses the result, and [emit] writes the tree out for regexp2.
func rewrite(pattern string) (string, error) {
	w := &rewriter{src: pattern}
	w.out.Grow(len(pattern) + 16)
	for w.pos < len(w.src) {
		var err error
		switch w.src[w.pos] {
		case '\\':
			err = w.escape(nil)
		case '[':
			err = w.class()
		case '(':
			err = w.group()
		case '{':
			err = w.counted()
		default:
			w.copyRune(&w.out)
		}
		if err != nil {
			return "", err
		}
	}
	return w.out.String(), nil
}

// rewriter walks the pattern once; pos indexes src.
type rewriter struct {
	src string
	pos int
	out strings.Builder
}

func (w *rewriter) copyRune(b *strings.Builder) {
	_, size := utf8.DecodeRuneInString(w.src[w.pos:])
	b.WriteString(w.src[w.pos : w.pos+size])
	w.pos += size
}

func (w *rewriter) copyN(b *strings.Builder, n int) {
	b.WriteString(w.src[w.pos : w.pos+n])
	w.pos += n
}

// escape handles a backslash sequence, outside a class when cs is nil.
func (w *rewriter) escape(cs *classState) error {
	b := &w.out
	if cs != nil {
		b = &cs.text
	}
	if w.pos+1 >= len(w.src) {
		w.copyN(b, 1) // trailing backslash: Go's parser reports it
		return nil
	}
	c, size := utf8.DecodeRuneInString(w.src[w.pos+1:])
	switch c {
	case 'd', 'D', 'w', 'W', 's', 'S':
		if err := w.checkSetInClass(cs); err != nil {
			return err
		}
		ranges, negated := perlSet(c), unicode.IsUpper(c)
		if cs == nil {
			b.WriteByte('[')
			if negated {
				b.WriteByte('^')
			}
			writeRanges(b, ranges)
			b.WriteByte(']')
		} else {
			if negated {
				ranges = complement(ranges)
			}
			writeRanges(b, ranges)
		}
		w.pos += 2
		return nil
	case 'p', 'P':
		if err := w.checkSetInClass(cs); err != nil {
			return err
		}
		return w.property(b)
	case 'u', 'U':
		return w.unicodeEscape(b, cs == nil)
	case 'x':
		return w.hexEscape(b, cs == nil)
	case 'n':
		if cs == nil {
			return domain.LineBreakError()
		}
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return domain.BackreferenceError()
	case 'Q', 'E':
		return refuse(`\Q...\E quoting is not supported; escape each special character with \ or pass fixed_strings=true`)
	case 'C':
		return refuse(`\C (any byte) is not supported; write . for any character`)
	case 'Z':
		return refuse(`\Z is not supported; write $ (each value is searched as one line)`)
	case '<', '>':
		return refuse(`\< and \> are not portable word boundaries; write \b`)
	}
	if cs != nil {
		cs.afterDash = false
		cs.items++
	}
	w.copyN(b, 1+size)
	return nil
}

// unicodeEscape turns Rust's \u007F, \u{7F}, \U0000007F and \U{7F} into Go's \x{7F}.
func (w *rewriter) unicodeEscape(b *strings.Builder, outside bool) error {
	digits := 4
	if w.src[w.pos+1] == 'U' {
		digits = 8
	}
	return w.codeEscape(b, outside, digits)
}

// hexEscape checks \x7F and \x{7F}.
func (w *rewriter) hexEscape(b *strings.Builder, outside bool) error {
	return w.codeEscape(b, outside, 2)
}

// codeEscape writes a character given by its code in hex as \x{...}; a
// malformed one is copied for Go's parser to report.
func (w *rewriter) codeEscape(b *strings.Builder, outside bool, digits int) error {
	rest := w.src[w.pos+2:]
	var hex string
	n := 2
	if strings.HasPrefix(rest, "{") {
		if end := strings.IndexByte(rest, '}'); end > 0 {
			hex, n = rest[1:end], 2+end+1
		}
	} else if len(rest) >= digits {
		hex, n = rest[:digits], 2+digits
	}
	v, err := strconv.ParseUint(hex, 16, 32)
	if hex == "" || err != nil || v > unicode.MaxRune {
		w.copyN(b, 2)
		return nil
	}
	if outside && v == '\n' {
		return domain.LineBreakError()
	}
	if v >= 0xD800 && v <= 0xDFFF {
		return refuse(`\x{%s} is a UTF-16 surrogate, not a character; write the character's own code point, such as \x{1F600}`, hex)
	}
	b.WriteString(`\x{` + strings.ToUpper(hex) + `}`)
	w.pos += n
	return nil
}

// group checks what follows '(': lookaround, atomic groups, comments,
// backreferences and the x, u and R flags have no equivalent.
func (w *rewriter) group() error {
	rest := w.src[w.pos+1:]
	if !strings.HasPrefix(rest, "?") {
		w.copyN(&w.out, 1)
		return nil
	}
	rest = rest[1:]
	switch {
	case strings.HasPrefix(rest, "P<"):
	case strings.HasPrefix(rest, "P=") || strings.HasPrefix(rest, "P>"):
		return domain.BackreferenceError()
	case strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!"):
		return domain.LookaroundError()
	case strings.HasPrefix(rest, "<"):
		return refuse(`write a named group as (?P<name>...); (?<name>...) is not accepted by every ripgrep version`)
	case strings.HasPrefix(rest, ">"):
		return refuse(`atomic groups (?>...) are not supported; write (?:...)`)
	case strings.HasPrefix(rest, "#"):
		return refuse(`inline comments (?#...) are not supported; remove them`)
	default:
		if err := checkFlags(rest); err != nil {
			return err
		}
		// Go lets a repetition after (?i) repeat what precedes the flags.
		if end := strings.IndexAny(rest, ":)"); end >= 0 && rest[end] == ')' &&
			end+1 < len(rest) && strings.IndexByte("*+?{", rest[end+1]) >= 0 {
			return refuse(`a repetition operator cannot follow a flag group such as (?i); put it after an expression`)
		}
	}
	w.copyN(&w.out, 2)
	return nil
}

// checkFlags looks at the flags of (?flags) or (?flags:...).
func checkFlags(rest string) error {
	negated := false
	for _, c := range rest {
		switch c {
		case ':', ')':
			return nil
		case '-':
			negated = true
		case 'm':
			if negated {
				return refuse(`(?-m) is not supported; ^ and $ already match at the start and end of each value's line`)
			}
		case 'x':
			return refuse(`the x (verbose) flag is not supported; remove it and write the pattern without spaces or comments`)
		case 'u':
			return refuse(`the u flag is not supported; remove it (patterns are always Unicode-aware)`)
		case 'R':
			return refuse(`the R (CRLF) flag is not supported; remove it (values never contain line breaks)`)
		case 'i', 's', 'U':
		default:
			return nil // Go's parser reports the unknown flag
		}
	}
	return nil
}

// counted checks that a '{' starts a repetition such as {2}, {2,} or {2,5}:
// Rust refuses any other bare '{' where Go reads it as a literal.
func (w *rewriter) counted() error {
	rest := w.src[w.pos+1:]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	ok := i > 0
	if ok && i < len(rest) && rest[i] == ',' {
		i++
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
	}
	if !ok || i >= len(rest) || rest[i] != '}' {
		return refuse(`a literal { must be escaped as \{ (a bare { starts a repetition such as {2,5})`)
	}
	w.copyN(&w.out, i+2)
	return nil
}

func refuse(format string, args ...any) error {
	return domain.Errorf(domain.ErrInvalidArgument, "unsupported regex: "+format, args...)
}
