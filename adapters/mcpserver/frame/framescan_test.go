package frame

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFrameScannerSurvivesUnbalancedNesting: the scanner reads frames too
// large for the SDK, so anything an attacker sends reaches it. Closers with
// nothing open, then openers deeper than it tracks, then a real frame, in
// every order of the bracket kinds, once crashed the server (index -1 in
// kinds; FuzzFrames found "}{..."). Each must scan without a panic, and a
// frame after the junk on the same line is still not mistaken for fields
// of the top level when the junk left containers open.
func TestFrameScannerSurvivesUnbalancedNesting(t *testing.T) {
	frame := `{"id":7,"method":"ping"}`
	for _, junk := range []string{"}", "]", "}}", "]]]]", "}]}]", "}{", "]{", "}[", "]]{{", "}}}}{", "{{{{{}}}}}}}}"} {
		for _, n := range []int{1, 2, 5} {
			line := strings.Repeat(junk, n) + frame
			t.Run(line, func(t *testing.T) {
				var s frameScanner
				assert.NotPanics(t, func() { s.feed([]byte(line)); _ = s.fields() })
			})
		}
	}
	// Closers alone leave the scanner at the top level: the frame after
	// them is read as a frame.
	var s frameScanner
	s.feed([]byte("}}]]" + frame))
	f := s.fields()
	assert.Equal(t, "7", string(f.id))
	assert.Equal(t, "ping", f.method)
}

// TestGuardAnswersAnOversizedLineOfUnbalancedJunk: the same bytes through
// the guard's oversized path (the one the fuzzer crashed) are refused, and
// the guard goes on to the next line.
func TestGuardAnswersAnOversizedLineOfUnbalancedJunk(t *testing.T) {
	line := "}{" + strings.Repeat("x", 200) + "\n"
	next := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	var passed string
	var refused []refusal
	assert.NotPanics(t, func() { passed, refused, _ = guardOver(t, line+next, 64) })
	assert.Len(t, refused, 1, "the oversized line is refused once")
	assert.Equal(t, next, passed, "the next line reaches the SDK")
}
