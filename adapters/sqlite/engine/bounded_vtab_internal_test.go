package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The count is an upper bound of what FTS5 builds a node for: barewords
// (operators among them), quoted strings (one each, "" inside them
// escaped), and punctuation; it stops counting past the limit.
func TestFTSTermCount(t *testing.T) {
	for _, c := range []struct {
		q    string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"  a\tb\nc\r", 3},
		{"a OR b AND NOT c", 6},
		{`"a b c d"`, 1},
		{`"a ""b"" c" d`, 2},
		{`"unterminated a b c`, 1},
		{"NEAR(a b, 3)", 7},
		{"{a b}: c*", 7},
		{"^a + b - c", 6},
		{"é中文 x", 2},
		{"a\x00b", 1},
	} {
		assert.Equal(t, c.want, ftsTerms([]byte(c.q), 100), "%q", c.q)
	}
	assert.Equal(t, 11, ftsTerms([]byte(strings.Repeat("a ", 1000)), 10), "stops past the limit")
}
