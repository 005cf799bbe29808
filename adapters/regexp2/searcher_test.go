package regexp2_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

func TestSearcherContract(t *testing.T) {
	t.Parallel()
	contract.TestTextSearcher(t, func(*testing.T) ports.TextSearcher { return regexp2.New() })
}

// TestSearcherRefusesDialectDifferences covers constructs that ripgrep
// rejects, reads differently, or reads differently across its versions:
// each is refused with a message that names no internal rewrite of the
// pattern.
func TestSearcherRefusesDialectDifferences(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, pattern string }{
		{"named group in the (?<name>) form", `(?<n>a)`},
		{"lookahead", `a(?=b)`},
		{"negative lookahead", `a(?!b)`},
		{"lookbehind", `(?<=a)b`},
		{"negative lookbehind", `(?<!a)b`},
		{"atomic group", `(?>a)`},
		{"inline comment", `a(?#note)`},
		{"named backreference", `(?P<n>a)(?P=n)`},
		{"numbered backreference", `(a)\1`},
		{"octal escape", `\012`},
		{"possessive quantifier", `a*+`},
		{"stacked quantifiers", `a**`},
		{"verbose flag", `(?x)a b`},
		{"unicode flag", `(?u)a`},
		{"ASCII mode", `(?-u:\w)`},
		{"CRLF flag", `(?R)a`},
		{"multi-line anchors turned off", `(?i-m:^a)`},
		{"repetition after a flag group", `a(?i)*`},
		{"quoting", `\Q.*\E`},
		{"any byte", `\C`},
		{"end of text before a final newline", `a\Z`},
		{"word start", `\<a`},
		{"word end", `a\>`},
		{"bare brace", `a{`},
		{"brace without a count", `a{,2}`},
		{"brace with spaces", `a{1, 2}`},
		{"nested class", `[a[bc]]`},
		{"class intersection", `[a-z&&[^aeiou]]`},
		{"class difference", `[a-z--b]`},
		{"class symmetric difference", `[a-z~~b]`},
		{"not a POSIX class", `[[:foo:]]`},
		{"perl class as a range start", `[\d-z]`},
		{"perl class as a range end", `[a-\w]`},
		{"category as a range start", `[\pL-z]`},
		{"POSIX class as a range start", `[[:alpha:]-z]`},
		{"script", `\p{Greek}`},
		{"script with a long name", `\p{Old_Italic}`},
		{"binary property", `\p{Alphabetic}`},
		{"negation inside braces", `\p{^L}`},
		{"empty class", `[^\s\S]`},
		{"empty property", `\P{Any}`},
		{"repeated empty alternative", `(|a)+`},
		{"repeated nullable group", `(a*)*`},
		{"repeated assertion", `\b+`},
		{"line break escape", `a\nb`},
		{"line break as hex", `a\x0Ab`},
		{"line break as a Unicode escape", `a\u000Ab`},
		{"class of only a line break", `a[\n]b`},
		{"repetition count too large", `a{1001}`},
		{"surrogate", `\x{D800}`},
		{"class of surrogates", `[\x{D800}-\x{DFFF}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := contract.Collect(context.Background(), regexp2.New(), domain.SearchQuery{Pattern: tt.pattern}, slices.Values([]string{"abc"}))
			require.ErrorIs(t, err, domain.ErrInvalidArgument)
			var de *domain.Error
			require.True(t, errors.As(err, &de))
			// A rewritten pattern runs to thousands of bytes (\w alone is
			// hundreds of ranges), so a short message shows none of it.
			assert.Less(t, len(de.Message), 400, "the message stays short: %s", de.Message)
		})
	}
}

// TestSearcherTranslations checks constructs written differently in Rust
// and Go syntax that the engine accepts.
func TestSearcherTranslations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query domain.SearchQuery
		line  string
		want  []domain.LineMatch
	}{
		{"four-digit Unicode escape", domain.SearchQuery{Pattern: `caf\u00e9`}, "a café", []domain.LineMatch{{Index: 0, Text: "a café", Start: 2, End: 7}}},
		{"braced Unicode escape", domain.SearchQuery{Pattern: `\u{1F642}`}, "hi 🙂", []domain.LineMatch{{Index: 0, Text: "hi 🙂", Start: 3, End: 7}}},
		{"eight-digit Unicode escape", domain.SearchQuery{Pattern: `\U0001F642`}, "hi 🙂", []domain.LineMatch{{Index: 0, Text: "hi 🙂", Start: 3, End: 7}}},
		{"Unicode escape in a class", domain.SearchQuery{Pattern: `[\u0400-\u04FF]+`}, "a дом", []domain.LineMatch{{Index: 0, Text: "a дом", Start: 2, End: 8}}},
		{"punctuation escape", domain.SearchQuery{Pattern: `a\/b`}, "x a/b", []domain.LineMatch{{Index: 0, Text: "x a/b", Start: 2, End: 5}}},
		{"leading bracket in a class", domain.SearchQuery{Pattern: `[]a]+`}, "x]a]", []domain.LineMatch{{Index: 0, Text: "x]a]", Start: 1, End: 4}}},
		{"Greek sigma folds three ways", domain.SearchQuery{Pattern: `σ`, IgnoreCase: true}, "ς", []domain.LineMatch{{Index: 0, Text: "ς", Start: 0, End: 2}}},
		{"micro sign folds with mu", domain.SearchQuery{Pattern: `(?i)µ`}, "Μ", []domain.LineMatch{{Index: 0, Text: "Μ", Start: 0, End: 2}}},
		{"titlecase digraph folds", domain.SearchQuery{Pattern: `ǆ`, IgnoreCase: true, FixedStrings: true}, "Ǆ", []domain.LineMatch{{Index: 0, Text: "Ǆ", Start: 0, End: 2}}},
		{"word boundary next to a combining mark", domain.SearchQuery{Pattern: `e\b`}, "e\u0301 e", []domain.LineMatch{{Index: 0, Text: "e\u0301 e", Start: 4, End: 5}}},
		{"Other_Alphabetic is a word character", domain.SearchQuery{Pattern: `\w+`}, "-Ⓐⓑ-", []domain.LineMatch{{Index: 0, Text: "-Ⓐⓑ-", Start: 1, End: 7}}},
		{"White_Space includes NEL", domain.SearchQuery{Pattern: `\s`}, "a\u0085b", []domain.LineMatch{{Index: 0, Text: "a\u0085b", Start: 1, End: 3}}},
		{"zero-width space is not a space", domain.SearchQuery{Pattern: `\s`}, "a\u200bb", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := contract.Collect(context.Background(), regexp2.New(), tt.query, slices.Values([]string{tt.line}))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestSearcherTimesOutInsideASlowMatch covers what ripgrep never needs:
// regexp2 backtracks, and an exponential match is cut at the deadline.
func TestSearcherTimesOutInsideASlowMatch(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	line := strings.Repeat("a", 60) + "!"
	started := time.Now()
	_, err := contract.Collect(ctx, regexp2.New(), domain.SearchQuery{Pattern: `(a|aa)+$`}, slices.Values([]string{line}))
	require.ErrorIs(t, err, domain.ErrTimeout)
	assert.Less(t, time.Since(started), slack.Of(3*time.Second))
}
