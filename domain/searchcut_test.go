package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestCutSearchLineKeepsWholeCharacters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		max  int
		want string
		cut  bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"éé", 3, "é", true},               // 2+2 bytes: the second é does not fit
		{"aé", 2, "a", true},               // never half a character
		{"🙂x", 3, "", true},                // a 4-byte character longer than the cap
		{"a⏎b", 4, "a⏎", true},             // the line-break mark is 3 bytes
		{"anything", 0, "anything", false}, // 0: no cap
	} {
		got, cut := domain.CutSearchLine(tc.line, tc.max)
		assert.Equal(t, tc.want, got, "%q max %d", tc.line, tc.max)
		assert.Equal(t, tc.cut, cut, "%q max %d", tc.line, tc.max)
	}
}
