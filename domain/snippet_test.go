package domain_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestSnippet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		line       string
		start, end int
		context    int
		want       string
	}{
		{name: "whole line fits", line: "a note about apples", start: 13, end: 18, context: 80, want: "a note about apples"},
		{name: "cut on the left only", line: "a note about apples", start: 13, end: 18, context: 10, want: "...ote about apples"},
		{name: "cut on both sides", line: "0123456789abcdef", start: 7, end: 9, context: 2, want: "...56789a..."},
		{name: "context zero keeps only the match", line: "xx match yy", start: 3, end: 8, context: 0, want: "...match..."},
		{name: "context zero match is the whole line", line: "match", start: 0, end: 5, context: 0, want: "match"},
		{name: "match at the start", line: "match and more", start: 0, end: 5, context: 3, want: "match an..."},
		{name: "match at the end", line: "more and match", start: 9, end: 14, context: 3, want: "...nd match"},
		{name: "empty match", line: "abcdef", start: 3, end: 3, context: 1, want: "...cd..."},
		{name: "empty line", line: "", start: 0, end: 0, context: 5, want: ""},
		{name: "context counts two-byte characters", line: "ééééXéééé", start: 8, end: 9, context: 2, want: "...ééXéé..."},
		{name: "context counts three-byte characters", line: "日本語テキスト", start: 9, end: 12, context: 1, want: "...語テキ..."},
		{name: "context counts emoji as one character", line: "🙂🙂🙂 hi 🙂🙂🙂", start: 13, end: 15, context: 2, want: "...🙂 hi 🙂..."},
		{name: "line break mark is one character", line: "one⏎two⏎three", start: 6, end: 9, context: 1, want: "...⏎two⏎..."},
		{name: "multi-byte match", line: "caféteria", start: 3, end: 5, context: 1, want: "...fét..."},
		{name: "negative context acts as zero", line: "abc", start: 1, end: 2, context: -4, want: "...b..."},
		{name: "offsets past the end are clamped", line: "abc", start: 2, end: 99, context: 1, want: "...bc"},
		{name: "offset inside a character widens to it", line: "aéb", start: 2, end: 2, context: 0, want: "...é..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := domain.Snippet(tt.line, tt.start, tt.end, tt.context)
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got), "snippet %q splits a character", got)
		})
	}
}

func TestSnippetNeverSplitsCharacters(t *testing.T) {
	t.Parallel()
	line := "añ日🙂b" + strings.Repeat("é🙂", 5)
	for start := 0; start <= len(line); start++ {
		if start < len(line) && !utf8.RuneStart(line[start]) {
			continue
		}
		for ctx := 0; ctx < 6; ctx++ {
			got := domain.Snippet(line, start, start, ctx)
			assert.True(t, utf8.ValidString(got), "start %d context %d gave %q", start, ctx, got)
			body := strings.TrimSuffix(strings.TrimPrefix(got, "..."), "...")
			assert.LessOrEqual(t, utf8.RuneCountInString(body), 2*ctx, "start %d context %d gave %q", start, ctx, got)
		}
	}
}

func TestSearchLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		want  string
	}{
		{name: "plain text is unchanged", value: "hello, world", want: "hello, world"},
		{name: "empty value", value: "", want: ""},
		{name: "LF becomes the mark", value: "one\ntwo", want: "one⏎two"},
		{name: "CRLF becomes one mark", value: "one\r\ntwo", want: "one⏎two"},
		{name: "lone CR becomes the mark", value: "one\rtwo", want: "one⏎two"},
		{name: "CR CR LF is two breaks", value: "a\r\r\nb", want: "a⏎⏎b"},
		{name: "LF CR is two breaks", value: "a\n\rb", want: "a⏎⏎b"},
		{name: "trailing newline is kept as a mark", value: "end\n", want: "end⏎"},
		{name: "multi-byte text is unchanged", value: "café 日本 🙂", want: "café 日本 🙂"},
		{name: "tab and NUL are kept", value: "a\tb\x00c", want: "a\tb\x00c"},
		{name: "lone continuation byte", value: "a\x80b", want: "a?b"},
		{name: "two lone continuation bytes are two sequences", value: "a\x80\x80b", want: "a??b"},
		{name: "invalid lead byte", value: "a\xffb", want: "a?b"},
		{name: "truncated three-byte sequence is one sequence", value: "a\xe2\x82b", want: "a?b"},
		{name: "truncated four-byte sequence is one sequence", value: "a\xf0\x9f\x99", want: "a?"},
		{name: "overlong encoding is one per byte", value: "a\xc0\xafb", want: "a??b"},
		{name: "encoded surrogate is one per byte", value: "a\xed\xa0\x80b", want: "a???b"},
		{name: "truncated sequence before a newline", value: "a\xe2\x82\nb", want: "a?⏎b"},
		{name: "invalid byte next to a valid character", value: "\xffé", want: "?é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := domain.SearchLine(tt.value)
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got))
			assert.NotContains(t, got, "\n")
			assert.Equal(t, got, domain.SearchLine(got), "SearchLine is idempotent")
		})
	}
}
