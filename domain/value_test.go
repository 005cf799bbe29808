package domain_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestLongTextRendersLikeTheWholeText pins the promise behind
// domain.LongText: a cell read only up to the cap renders byte for byte
// like the whole value, in FormatCell and in a TableWriter, whatever cap
// the writer uses.
func TestLongTextRendersLikeTheWholeText(t *testing.T) {
	t.Parallel()
	texts := map[string]string{
		"ascii":          strings.Repeat("abcdefghij", 30),
		"multi-byte":     strings.Repeat("é漢🙂", 60),
		"invalid bytes":  strings.Repeat("a\xffb\xc3", 40),
		"quotes":         strings.Repeat(`say "hi", `, 20),
		"newlines":       strings.Repeat("line\r\n", 30),
		"split sequence": strings.Repeat("x", 99) + "漢" + strings.Repeat("y", 60),
	}
	for name, text := range texts {
		for _, readCap := range []int{0, 1, 50, 99, 100, 150} {
			long, ok := domain.TextHead([]byte(text), readCap)
			require.True(t, ok, "%s: %d chars is longer than %d", name, utf8.RuneCountInString(text), readCap)
			assert.Equal(t, utf8.RuneCountInString(text), long.Chars, "%s", name)
			for _, writeCap := range []int{0, 1, 50, 100, 1000} {
				if writeCap > readCap {
					continue // the reader's cap is the writer's cap or larger
				}
				want, wantCut := domain.FormatCell(text, writeCap)
				got, gotCut := domain.FormatCell(long, writeCap)
				assert.Equal(t, want, got, "%s read at %d, shown at %d", name, readCap, writeCap)
				assert.Equal(t, wantCut, gotCut)
				whole := domain.RenderTable([]string{"n", "v"}, [][]any{{int64(1), text}}, 1<<20, writeCap)
				part := domain.RenderTable([]string{"n", "v"}, [][]any{{int64(1), long}}, 1<<20, writeCap)
				assert.Equal(t, whole.Body(), part.Body(), "%s read at %d, shown at %d", name, readCap, writeCap)
				assert.Equal(t, whole.CellsCut(), part.CellsCut())
			}
		}
	}
}

func TestTextHeadKeepsShortTextWhole(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "abc", "漢字漢字漢", strings.Repeat("é", 10)} {
		_, ok := domain.TextHead([]byte(text), 10)
		assert.False(t, ok, "%q has at most 10 code points", text)
	}
	_, ok := domain.TextHead([]byte("abc"), -1)
	assert.False(t, ok, "a negative cap reads whole")
}

func TestTextHeadCopiesOnlyTheHead(t *testing.T) {
	t.Parallel()
	buf := []byte(strings.Repeat("漢", 1000))
	long, ok := domain.TextHead(buf, 3)
	require.True(t, ok)
	assert.Equal(t, "漢漢漢", long.Head)
	assert.Equal(t, 1000, long.Chars)
	copy(buf, "xxxxxxxxx")
	assert.Equal(t, "漢漢漢", long.Head, "the head does not alias the buffer it came from")
}
