package contract

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// SearchCase is one scenario of the [ports.TextSearcher] contract: a query
// over some lines, and either the exact matches or the error kind expected.
type SearchCase struct {
	Name    string             // what the case shows, as a subtest name
	Query   domain.SearchQuery // the search
	Lines   []string           // the lines searched, in order
	Want    []domain.LineMatch // nil when nothing matches
	WantErr error              // a domain sentinel, or nil
}

// TestTextSearcher runs the text search contract against the searchers
// newSearcher makes (a fresh one per subtest): every [SearchCases] case,
// then the behaviour around them: found's error stops the search, the
// deadline is honoured however the lines arrive, lines and found never run
// concurrently, and long streams and long lines come back exact.
func TestTextSearcher(t *testing.T, newSearcher func(t *testing.T) ports.TextSearcher) {
	t.Helper()
	t.Run("name", func(t *testing.T) {
		assert.NotEmpty(t, newSearcher(t).Name())
	})
	for _, tc := range SearchCases() {
		t.Run("case/"+tc.Name, func(t *testing.T) {
			t.Parallel()
			got, err := Collect(context.Background(), newSearcher(t), tc.Query, slices.Values(tc.Lines))
			if tc.WantErr != nil {
				require.ErrorIs(t, err, tc.WantErr)
				var de *domain.Error
				require.ErrorAs(t, err, &de, "errors are *domain.Error, whose message the agent reads")
				assert.NotEmpty(t, de.Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.Want, got)
		})
	}
	t.Run("found error stops the search and is returned as is", func(t *testing.T) {
		t.Parallel()
		errStop := errors.New("stop here")
		calls := 0
		err := newSearcher(t).Search(context.Background(), domain.SearchQuery{Pattern: "match"}, numbered("match", 5000),
			func(domain.LineMatch) error {
				calls++
				if calls == 3 {
					return errStop
				}
				return nil
			})
		require.ErrorIs(t, err, errStop)
		assert.Equal(t, 3, calls)
	})
	t.Run("many lines keep their indexes", func(t *testing.T) {
		t.Parallel()
		const n = 200_000
		lines := func(yield func(string) bool) {
			for i := range n {
				line := fmt.Sprintf("row %d of some ordinary text", i)
				if i%997 == 0 {
					line = fmt.Sprintf("row %d has the needle", i)
				}
				if !yield(line) {
					return
				}
			}
		}
		got, err := Collect(context.Background(), newSearcher(t), domain.SearchQuery{Pattern: `needle`}, lines)
		require.NoError(t, err)
		require.Len(t, got, (n+996)/997)
		for k, m := range got {
			want := fmt.Sprintf("row %d has the needle", k*997)
			assert.Equal(t, domain.LineMatch{Index: k * 997, Text: want, Start: len(want) - 6, End: len(want)}, m)
		}
	})
	t.Run("a slow found loses no match", func(t *testing.T) {
		t.Parallel()
		got, err := Collect(context.Background(), newSearcher(t), domain.SearchQuery{Pattern: "7$"}, numbered("line", 20_000),
			func() { time.Sleep(50 * time.Microsecond) })
		require.NoError(t, err)
		assert.Len(t, got, 2000)
	})
	t.Run("a long line", func(t *testing.T) {
		t.Parallel()
		line := strings.Repeat("é-", 150_000) + "needle"
		got, err := Collect(context.Background(), newSearcher(t), domain.SearchQuery{Pattern: "ne+dle"}, slices.Values([]string{"x", line}))
		require.NoError(t, err)
		assert.Equal(t, []domain.LineMatch{{Index: 1, Text: line, Start: len(line) - 6, End: len(line)}}, got)
	})
	t.Run("lines and found never run concurrently", func(t *testing.T) {
		t.Parallel()
		shared := 0 // -race reports it if both sides touch it at once
		lines := func(yield func(string) bool) {
			for i := range 20_000 {
				shared++
				if !yield(fmt.Sprint("v", i)) {
					return
				}
			}
		}
		err := newSearcher(t).Search(context.Background(), domain.SearchQuery{Pattern: "5"}, lines,
			func(domain.LineMatch) error { shared++; return nil })
		require.NoError(t, err)
		assert.Greater(t, shared, 20_000)
	})
	t.Run("one searcher serves concurrent searches", func(t *testing.T) {
		t.Parallel()
		s := newSearcher(t)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				got, err := Collect(context.Background(), s, domain.SearchQuery{Pattern: fmt.Sprint("^x", i, "$")}, numbered("x", 1000))
				assert.NoError(t, err)
				assert.Equal(t, []domain.LineMatch{{Index: i, Text: fmt.Sprint("x", i), Start: 0, End: 2}}, got)
			})
		}
		wg.Wait()
	})
	testTimeouts(t, newSearcher)
}

func testTimeouts(t *testing.T, newSearcher func(t *testing.T) ports.TextSearcher) {
	endless := func(pause time.Duration) iter.Seq[string] {
		return func(yield func(string) bool) {
			for i := 0; ; i++ {
				if pause > 0 {
					time.Sleep(pause)
				}
				if !yield(fmt.Sprint("an endless stream, line ", i)) {
					return
				}
			}
		}
	}
	for _, tc := range []struct {
		name  string
		lines iter.Seq[string]
	}{
		{name: "timeout with an endless stream of cheap lines", lines: endless(0)},
		{name: "timeout with a slow stream", lines: endless(5 * time.Millisecond)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			started := time.Now()
			err := newSearcher(t).Search(ctx, domain.SearchQuery{Pattern: "line 1"}, tc.lines,
				func(domain.LineMatch) error { return nil })
			require.ErrorIs(t, err, domain.ErrTimeout)
			assert.Less(t, time.Since(started), slack.Of(5*time.Second), "the search stops soon after the deadline")
		})
	}
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{name: "deadline passed before the search", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}},
		{name: "context cancelled before the search", ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tc.ctx()
			defer cancel()
			called := false
			err := newSearcher(t).Search(ctx, domain.SearchQuery{Pattern: "a"}, slices.Values([]string{"a"}),
				func(domain.LineMatch) error { called = true; return nil })
			require.ErrorIs(t, err, domain.ErrTimeout)
			assert.False(t, called)
		})
	}
}

// Collect runs one search and returns its matches; each optional hook runs
// inside found.
func Collect(ctx context.Context, s ports.TextSearcher, q domain.SearchQuery, lines iter.Seq[string], hooks ...func()) ([]domain.LineMatch, error) {
	var got []domain.LineMatch
	err := s.Search(ctx, q, lines, func(m domain.LineMatch) error {
		for _, h := range hooks {
			h()
		}
		got = append(got, m)
		return nil
	})
	return got, err
}

// numbered yields n lines "<prefix>0", "<prefix>1", ...
func numbered(prefix string, n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range n {
			if !yield(fmt.Sprint(prefix, i)) {
				return
			}
		}
	}
}

// SearchCases returns the table every [ports.TextSearcher] must satisfy,
// byte for byte. It uses only regex syntax that ripgrep 13 and later and
// the in-process engine read the same way.
func SearchCases() []SearchCase {
	re := func(p string) domain.SearchQuery { return domain.SearchQuery{Pattern: p} }
	fold := func(p string) domain.SearchQuery { return domain.SearchQuery{Pattern: p, IgnoreCase: true} }
	fixed := func(p string) domain.SearchQuery { return domain.SearchQuery{Pattern: p, FixedStrings: true} }
	at := func(i int, line string, start, end int) domain.LineMatch {
		return domain.LineMatch{Index: i, Text: line, Start: start, End: end}
	}
	bad := func(name, pattern string) SearchCase {
		return SearchCase{Name: "bad pattern: " + name, Query: re(pattern), Lines: []string{"abc"}, WantErr: domain.ErrInvalidArgument}
	}
	rows := make([]string, 500)
	every := make([]domain.LineMatch, 500)
	for i := range rows {
		rows[i] = fmt.Sprint("row ", i)
		every[i] = at(i, rows[i], 0, 3)
	}
	return []SearchCase{
		{Name: "literal: first match of each line", Query: re("beta"), Lines: []string{"alpha beta", "gamma", "beta beta"},
			Want: []domain.LineMatch{at(0, "alpha beta", 6, 10), at(2, "beta beta", 0, 4)}},
		{Name: "literal: no match anywhere", Query: re("delta"), Lines: []string{"alpha", "beta"}},
		{Name: "no lines at all", Query: re("a"), Lines: nil},
		{Name: "regex: alternation is leftmost-first", Query: re("ab|abc"), Lines: []string{"xabcd"}, Want: []domain.LineMatch{at(0, "xabcd", 1, 3)}},
		{Name: "regex: greedy repetition", Query: re("a.*b"), Lines: []string{"a1b2b3"}, Want: []domain.LineMatch{at(0, "a1b2b3", 0, 5)}},
		{Name: "regex: lazy repetition", Query: re("a.*?b"), Lines: []string{"a1b2b3"}, Want: []domain.LineMatch{at(0, "a1b2b3", 0, 3)}},
		{Name: "regex: ungreedy flag", Query: re("(?U)a+"), Lines: []string{"aaa"}, Want: []domain.LineMatch{at(0, "aaa", 0, 1)}},
		{Name: "regex: counted repetition", Query: re("[0-9]{3}-[0-9]{4}"), Lines: []string{"call 555-1234 now"}, Want: []domain.LineMatch{at(0, "call 555-1234 now", 5, 13)}},
		{Name: "regex: ^ and $ anchor each line", Query: re("^ab|cd$"), Lines: []string{"abx", "xab", "xcd", "cdx"},
			Want: []domain.LineMatch{at(0, "abx", 0, 2), at(2, "xcd", 1, 3)}},
		{Name: `regex: \A and \z anchor each line too`, Query: re(`\Aab|cd\z`), Lines: []string{"abx", "xab", "xcd", "cdx"},
			Want: []domain.LineMatch{at(0, "abx", 0, 2), at(2, "xcd", 1, 3)}},
		{Name: "regex: escaped metacharacters", Query: re(`\$5\.00 \(net\)`), Lines: []string{"cost: $5x00 (net)", "cost: $5.00 (net)"},
			Want: []domain.LineMatch{at(1, "cost: $5.00 (net)", 6, 17)}},
		{Name: "regex: empty match at the start", Query: re("x*"), Lines: []string{"abc", ""}, Want: []domain.LineMatch{at(0, "abc", 0, 0), at(1, "", 0, 0)}},
		{Name: "regex: empty pattern matches every line", Query: re(""), Lines: []string{"abc", ""}, Want: []domain.LineMatch{at(0, "abc", 0, 0), at(1, "", 0, 0)}},
		{Name: "regex: word boundaries", Query: re(`\bcat\b`), Lines: []string{"concat", "the cat sat", "cat"},
			Want: []domain.LineMatch{at(1, "the cat sat", 4, 7), at(2, "cat", 0, 3)}},
		{Name: "regex: word boundaries are Unicode-aware", Query: re(`\bcaf`), Lines: []string{"écaf", "é caf"}, Want: []domain.LineMatch{at(1, "é caf", 3, 6)}},
		{Name: `regex: \d is Unicode`, Query: re(`\d+`), Lines: []string{"abc ٣٤٥"}, Want: []domain.LineMatch{at(0, "abc ٣٤٥", 4, 10)}},
		{Name: `regex: \s is Unicode`, Query: re(`a\sb`), Lines: []string{"a\u00a0b", "a\u2003b", "ab"},
			Want: []domain.LineMatch{at(0, "a\u00a0b", 0, 4), at(1, "a\u2003b", 0, 5)}},
		{Name: `regex: \w is Unicode`, Query: re(`\w+`), Lines: []string{"naïve café"}, Want: []domain.LineMatch{at(0, "naïve café", 0, 6)}},
		{Name: `regex: \W is Unicode`, Query: re(`\W+`), Lines: []string{"naïve, café"}, Want: []domain.LineMatch{at(0, "naïve, café", 6, 8)}},
		{Name: "regex: Unicode categories", Query: re(`\p{Lu}\p{Ll}+`), Lines: []string{"hello World"}, Want: []domain.LineMatch{at(0, "hello World", 6, 11)}},
		{Name: "regex: POSIX classes are ASCII", Query: re(`[[:alpha:]]+`), Lines: []string{"éa1"}, Want: []domain.LineMatch{at(0, "éa1", 2, 3)}},
		{Name: "regex: dot matches one character", Query: re(`^.$`), Lines: []string{"é", "🙂", "ab", "⏎"},
			Want: []domain.LineMatch{at(0, "é", 0, 2), at(1, "🙂", 0, 4), at(3, "⏎", 0, 3)}},
		{Name: "regex: negated class over multi-byte text", Query: re(`[^a-z ]+`), Lines: []string{"abc ДОМ xyz"}, Want: []domain.LineMatch{at(0, "abc ДОМ xyz", 4, 10)}},
		{Name: "regex: inline case flag", Query: re(`(?i)error`), Lines: []string{"An ERROR here"}, Want: []domain.LineMatch{at(0, "An ERROR here", 3, 8)}},
		{Name: "regex: scoped case flag", Query: re(`(?i:e)rror`), Lines: []string{"ERROR Error"}, Want: []domain.LineMatch{at(0, "ERROR Error", 6, 11)}},
		{Name: "regex: named group", Query: re(`(?P<w>ba)r`), Lines: []string{"foobar"}, Want: []domain.LineMatch{at(0, "foobar", 3, 6)}},
		{Name: "regex: hex escapes", Query: re(`\x{e9}|\x41`), Lines: []string{"bAé"}, Want: []domain.LineMatch{at(0, "bAé", 1, 2)}},
		{Name: "regex: an escaped backslash before A is literal", Query: re(`\\A`), Lines: []string{`x\Ay`}, Want: []domain.LineMatch{at(0, `x\Ay`, 1, 3)}},
		{Name: "regex: pattern starting with a dash", Query: re("-v"), Lines: []string{"use -v here"}, Want: []domain.LineMatch{at(0, "use -v here", 4, 6)}},
		{Name: "ignore case: ASCII", Query: fold("error"), Lines: []string{"An ERROR", "none"}, Want: []domain.LineMatch{at(0, "An ERROR", 3, 8)}},
		{Name: "ignore case: Cyrillic", Query: fold("дом"), Lines: []string{"ДОМ"}, Want: []domain.LineMatch{at(0, "ДОМ", 0, 6)}},
		{Name: "ignore case: simple folding only", Query: fold("ß"), Lines: []string{"STRASSE", "STRAẞE"}, Want: []domain.LineMatch{at(1, "STRAẞE", 4, 7)}},
		{Name: "ignore case: Kelvin sign folds to k", Query: fold("k"), Lines: []string{"5 \u212a"}, Want: []domain.LineMatch{at(0, "5 \u212a", 2, 5)}},
		{Name: "ignore case: long s folds to s", Query: fold("s"), Lines: []string{"ſ"}, Want: []domain.LineMatch{at(0, "ſ", 0, 2)}},
		{Name: "ignore case: class ranges fold", Query: fold("[a-c]+"), Lines: []string{"xABCx"}, Want: []domain.LineMatch{at(0, "xABCx", 1, 4)}},
		{Name: "ignore case: categories fold", Query: fold(`\p{Lu}`), Lines: []string{"abc"}, Want: []domain.LineMatch{at(0, "abc", 0, 1)}},
		{Name: "ignore case: with fixed strings", Query: domain.SearchQuery{Pattern: "A.B", IgnoreCase: true, FixedStrings: true},
			Lines: []string{"aXb", "xa.by"}, Want: []domain.LineMatch{at(1, "xa.by", 1, 4)}},
		{Name: "fixed strings: metacharacters are literal", Query: fixed("a.b(c)*"), Lines: []string{"axb(c)", "a.b(c)*"}, Want: []domain.LineMatch{at(1, "a.b(c)*", 0, 7)}},
		{Name: "fixed strings: backslashes are literal", Query: fixed(`C:\temp`), Lines: []string{`path C:\temp\x`}, Want: []domain.LineMatch{at(0, `path C:\temp\x`, 5, 12)}},
		{Name: "fixed strings: an invalid regex is a fine literal", Query: fixed("("), Lines: []string{"f(x)"}, Want: []domain.LineMatch{at(0, "f(x)", 1, 2)}},
		{Name: "fixed strings: a flag-like pattern", Query: fixed("--json"), Lines: []string{"x --json y"}, Want: []domain.LineMatch{at(0, "x --json y", 2, 8)}},
		{Name: "multi-byte: offsets are bytes", Query: re("bar"), Lines: []string{"éü bar"}, Want: []domain.LineMatch{at(0, "éü bar", 5, 8)}},
		{Name: "multi-byte: emoji", Query: fixed("🙂"), Lines: []string{"hi 🙂 there"}, Want: []domain.LineMatch{at(0, "hi 🙂 there", 3, 7)}},
		{Name: "multi-byte: combining sequence", Query: re("e\u0301"), Lines: []string{"cafe\u0301"}, Want: []domain.LineMatch{at(0, "cafe\u0301", 3, 6)}},
		{Name: "multi-byte: emoji ZWJ sequence", Query: re("👩\u200d💻"), Lines: []string{"dev 👩\u200d💻!"}, Want: []domain.LineMatch{at(0, "dev 👩\u200d💻!", 4, 15)}},
		{Name: "multi-byte: CJK range", Query: re("[一-龥]+"), Lines: []string{"abc 日本語 def"}, Want: []domain.LineMatch{at(0, "abc 日本語 def", 4, 13)}},
		{Name: "multi-byte: byte order mark is text", Query: re("a"), Lines: []string{"\ufeffabc"}, Want: []domain.LineMatch{at(0, "\ufeffabc", 3, 4)}},
		{Name: "multi-byte: NUL and control bytes are text", Query: re("b"), Lines: []string{"a\x00\x01b"}, Want: []domain.LineMatch{at(0, "a\x00\x01b", 3, 4)}},
		{Name: "multi-byte: invalid UTF-8 is searched as ?", Query: re("a.b"), Lines: []string{"a\xffb"}, Want: []domain.LineMatch{at(0, "a?b", 0, 3)}},
		{Name: "newlines: the mark is searchable", Query: re("one⏎two"), Lines: []string{"one⏎two"}, Want: []domain.LineMatch{at(0, "one⏎two", 0, 9)}},
		{Name: "newlines: dot matches the mark", Query: re("e.t"), Lines: []string{"one⏎two"}, Want: []domain.LineMatch{at(0, "one⏎two", 2, 7)}},
		{Name: "newlines: raw line breaks in lines are normalised", Query: re("b|z"), Lines: []string{"a\nb", "c\r\nb", "z"},
			Want: []domain.LineMatch{at(0, "a⏎b", 4, 5), at(1, "c⏎b", 4, 5), at(2, "z", 0, 1)}},
		{Name: "newlines: a class that also holds a line break", Query: re(`[\nb]`), Lines: []string{"abc"}, Want: []domain.LineMatch{at(0, "abc", 1, 2)}},
		{Name: "newlines: [^\\n] spans the whole line", Query: re(`[^\n]+`), Lines: []string{"a⏎b"}, Want: []domain.LineMatch{at(0, "a⏎b", 0, 5)}},
		{Name: "newlines: line break in the pattern", Query: re("a\nb"), Lines: []string{"a⏎b"}, WantErr: domain.ErrInvalidArgument},
		{Name: "newlines: line break in a fixed pattern", Query: fixed("a\nb"), Lines: []string{"a⏎b"}, WantErr: domain.ErrInvalidArgument},
		{Name: `newlines: \n in a regex`, Query: re(`a\nb`), Lines: []string{"a⏎b"}, WantErr: domain.ErrInvalidArgument},
		{Name: `newlines: \x0A in a regex`, Query: re(`a\x0Ab`), Lines: []string{"a⏎b"}, WantErr: domain.ErrInvalidArgument},
		{Name: "newlines: a class of only a line break", Query: re(`a[\n]b`), Lines: []string{"a⏎b"}, WantErr: domain.ErrInvalidArgument},
		{Name: "many matches: only the first per line", Query: re("ab"), Lines: []string{"ab ab ab", "xx ab"},
			Want: []domain.LineMatch{at(0, "ab ab ab", 0, 2), at(1, "xx ab", 3, 5)}},
		{Name: "many matches: first regex match per line", Query: re(`\d+`), Lines: []string{"a1 b22 c333"}, Want: []domain.LineMatch{at(0, "a1 b22 c333", 1, 2)}},
		{Name: "many matches: every line matches", Query: re("row"), Lines: rows, Want: every},
		// Long lines: ripgrep lists every submatch of a line, so these are
		// output lines of many megabytes that the adapter must read in
		// bounded memory, and still report exactly.
		{Name: "long lines: every character matches", Query: re("."), Lines: []string{longA, "b"},
			Want: []domain.LineMatch{at(0, longA, 0, 1), at(1, "b", 0, 1)}},
		{Name: "long lines: a first match as long as the line", Query: re("a+"), Lines: []string{"x", longA},
			Want: []domain.LineMatch{at(1, longA, 0, len(longA))}},
		{Name: "long lines: escaped control characters, every one matching", Query: re(`[\x01é]`), Lines: []string{longCtl},
			Want: []domain.LineMatch{at(0, longCtl, 0, 1)}},
		{Name: "long lines: the match at the end", Query: fixed("needle"), Lines: []string{longCtl + "needle"},
			Want: []domain.LineMatch{at(0, longCtl+"needle", len(longCtl), len(longCtl)+6)}},
		{Name: "long lines: case-insensitive, every character", Query: fold("A"), Lines: []string{longA, "A"},
			Want: []domain.LineMatch{at(0, longA, 0, 1), at(1, "A", 0, 1)}},
		bad("unclosed group", "("),
		bad("unclosed class", "[a-"),
		bad("repetition of nothing", "*a"),
		bad("inverted repetition", "a{2,1}"),
		bad("bare brace", "a{"),
		bad("lookahead", "foo(?=bar)"),
		bad("lookbehind", "(?<!foo)bar"),
		bad("backreference", `(a)\1`),
		bad("unknown escape", `\j`),
		bad("unknown property", `\p{NoSuchProperty}`),
		bad("empty class", `[^\x00-\x{10FFFF}]`),
		bad("multi-line anchors turned off", "(?-m)^a"),
		bad("NUL", "a\x00"),
		bad("invalid UTF-8", "a\xff"),
		{Name: "bad pattern: NUL in fixed strings", Query: fixed("a\x00"), Lines: []string{"a"}, WantErr: domain.ErrInvalidArgument},
	}
}

// Long lines for [SearchCases]: a megabyte of one character, and of
// control characters (which ripgrep's JSON escapes as \u0001) and é.
var (
	longA   = strings.Repeat("a", 1<<20)
	longCtl = strings.Repeat("\x01é", 1<<18)
)

// RequireRg returns ripgrep's path. It skips the test when rg is absent,
// except in CI (CI set), where ripgrep must be installed and tested.
func RequireRg(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ripgrep (rg) is not on PATH, and CI must test it: %v", err)
		}
		t.Skipf("ripgrep (rg) is not on PATH: %v", err)
	}
	return path
}
