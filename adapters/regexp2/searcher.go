// Package regexp2 is the in-process text search engine, used when ripgrep is
// not installed. It runs github.com/dlclark/regexp2 (RE2-compatible mode,
// with a match timeout tied to the call's deadline) on patterns written in
// ripgrep's regex syntax, and gives exactly ripgrep's hits: a pattern is
// first parsed with ripgrep's meaning (see rewrite.go and emit.go), and a
// construct whose meaning differs between the two dialects is refused with
// a message that says what to write instead, never matched differently.
package regexp2

import (
	"context"
	"iter"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	re2 "github.com/dlclark/regexp2"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

var _ ports.TextSearcher = (*Searcher)(nil)

// timeoutEvery is how many lines share one computation of regexp2's match
// timeout (the time left until the deadline; the deadline itself is checked
// before every line).
const timeoutEvery = 64

// Searcher is the regexp2 [ports.TextSearcher]. It holds no state, so one
// Searcher serves concurrent calls.
type Searcher struct{}

// New returns a Searcher.
func New() *Searcher { return &Searcher{} }

// Name returns "regexp2".
func (s *Searcher) Name() string { return "regexp2" }

// Search reports the first match in each line, in line order, calling found
// on the caller's goroutine. Each line goes through [domain.SearchLine]
// first (a no-op for lines that already are search lines), and the
// reported Text is that line. Lines are read one at a time and never kept.
//
// Errors: [domain.ErrInvalidArgument] for a pattern that is invalid or uses
// a construct ripgrep would read differently (the message says what to
// write instead); [domain.ErrTimeout] when ctx expires, checked between
// lines and, through regexp2's match timeout, within a slow match; the
// error found returns, as is.
func (s *Searcher) Search(ctx context.Context, q domain.SearchQuery, lines iter.Seq[string], found func(domain.LineMatch) error) error {
	m, err := compile(q)
	if err != nil {
		return err
	}
	limit := domain.TimeLeft(ctx)
	if ctx.Err() != nil {
		return timeoutError(ctx, limit)
	}
	deadline, hasDeadline := ctx.Deadline()
	done := ctx.Done()
	index := 0
	for line := range lines {
		select {
		case <-done:
			return timeoutError(ctx, limit)
		default:
		}
		if hasDeadline && m.re != nil && index%timeoutEvery == 0 {
			m.re.MatchTimeout = max(time.Until(deadline), time.Millisecond)
		}
		line = domain.SearchLine(line)
		start, end, ok, err := m.find(line)
		if err != nil {
			return timeoutError(ctx, limit)
		}
		if ok {
			if err := found(domain.LineMatch{Index: index, Text: line, Start: start, End: end}); err != nil {
				return err
			}
		}
		index++
	}
	return nil
}

// matcher finds the first match in a line: with strings.Index for a
// case-sensitive literal, with regexp2 otherwise (on the lines that pass
// the prefilter).
type matcher struct {
	literal string
	re      *re2.Regexp
	filter  *prefilter // nil when the pattern requires no literal
	runes   []rune
}

// compile checks the query and builds its matcher.
func compile(q domain.SearchQuery) (*matcher, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	var tree *syntax.Regexp
	if q.FixedStrings {
		tree = &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune(q.Pattern)}
		if q.IgnoreCase {
			tree.Flags = syntax.FoldCase
		}
		if q.Pattern == "" {
			tree.Op = syntax.OpEmptyMatch
		}
	} else {
		text, err := rewrite(q.Pattern)
		if err != nil {
			return nil, err
		}
		flags := syntax.Perl
		if q.IgnoreCase {
			flags |= syntax.FoldCase
		}
		if tree, err = syntax.Parse(text, flags); err != nil {
			return nil, parseError(q.Pattern, err)
		}
		if err := checkRepeats(tree); err != nil {
			return nil, err
		}
	}
	if tree.Op == syntax.OpLiteral && tree.Flags&syntax.FoldCase == 0 {
		return &matcher{literal: string(tree.Rune)}, nil
	}
	var b strings.Builder
	emit(&b, tree)
	re, err := re2.Compile(b.String(), re2.RE2)
	if err != nil { // a bug in emit; regexp2's message would quote the rewritten pattern
		return nil, domain.Errorf(domain.ErrSearch, "the built-in search engine could not compile the pattern; install ripgrep or pass fixed_strings=true")
	}
	return &matcher{re: re, filter: newPrefilter(tree)}, nil
}

// keptRunes is the largest rune buffer a matcher keeps between lines.
const keptRunes = 64 << 10

// find returns the byte offsets of the first match in line.
func (m *matcher) find(line string) (start, end int, ok bool, err error) {
	if m.re == nil {
		i := strings.Index(line, m.literal)
		return i, i + len(m.literal), i >= 0, nil
	}
	if m.filter != nil && !m.filter.pass(line) {
		return 0, 0, false, nil
	}
	// regexp2 matches runes, 4 bytes each: a line of 8 MiB is 32 MiB of
	// runes. The buffer is sized exactly (appending would double its way
	// there, leaving as much again behind as garbage), and one grown for a
	// long line is dropped after it, not kept for the rest of the search.
	if n := utf8.RuneCountInString(line); cap(m.runes) < n {
		m.runes = make([]rune, 0, n)
	}
	m.runes = m.runes[:0]
	for _, r := range line {
		m.runes = append(m.runes, r)
	}
	if cap(m.runes) > keptRunes {
		defer func() { m.runes = nil }()
	}
	match, err := m.re.FindRunesMatch(m.runes)
	if err != nil || match == nil {
		return 0, 0, false, err
	}
	// regexp2 counts runes; a search line is valid UTF-8, so each rune's
	// UTF-8 length gives the exact byte offset.
	if len(m.runes) == len(line) {
		return match.Index, match.Index + match.Length, true, nil
	}
	start = utf8Len(m.runes[:match.Index])
	end = start + utf8Len(m.runes[match.Index:match.Index+match.Length])
	return start, end, true, nil
}

func utf8Len(runes []rune) int {
	n := 0
	for _, r := range runes {
		n += utf8.RuneLen(r)
	}
	return n
}

// parseError explains a pattern Go's parser refused.
func parseError(pattern string, err error) error {
	se, ok := err.(*syntax.Error)
	if !ok {
		return domain.Errorf(domain.ErrInvalidArgument, "invalid regex; fix the regex or pass fixed_strings=true")
	}
	what := string(se.Code)
	// Expr may hold text rewrite produced; quote it only when it is the user's.
	if se.Expr != "" && len(se.Expr) <= 60 && strings.Contains(pattern, se.Expr) {
		what += ": `" + se.Expr + "`"
	}
	hint := "fix the regex or pass fixed_strings=true"
	switch se.Code {
	case syntax.ErrInvalidRepeatOp:
		hint = "possessive or stacked quantifiers such as a*+ or a** are not supported; group the inner part as (?:a*)+"
	case syntax.ErrInvalidRepeatSize:
		hint = "write a repetition as {n}, {min,} or {min,max} with min <= max <= 1000"
	case syntax.ErrInvalidPerlOp:
		hint = "use (?:...), (?P<name>...) or the flags i, m, s and U"
	case syntax.ErrInvalidEscape:
		hint = `escape only punctuation, or use \d \w \s \b \pL \x{..}; to match the text literally pass fixed_strings=true`
	}
	return domain.Errorf(domain.ErrInvalidArgument, "invalid regex: %s; %s", what, hint)
}

func timeoutError(ctx context.Context, limit time.Duration) error {
	if _, ok := ctx.Deadline(); !ok || ctx.Err() == context.Canceled {
		return domain.Errorf(domain.ErrTimeout, "the search was cancelled before it finished")
	}
	return domain.Errorf(domain.ErrTimeout, "the regex search exceeded %ss and was cancelled; narrow the WHERE filter or simplify the pattern", domain.FormatSeconds(limit))
}
