package sqlite

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuoteIdent(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"recent", `"recent"`},
		{`a"b`, `"a""b"`},
		{`""`, `""""""`},
		{"", `""`},
		{"with space", `"with space"`},
	} {
		assert.Equal(t, tc.want, quoteIdent(tc.in), tc.in)
	}
}
