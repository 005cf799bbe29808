package ripgrep

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// memCollect runs readMatches over output and returns the matches and the
// reader's error.
func memCollect(output string, maxText int) ([]domain.LineMatch, error) {
	q := newQueue()
	readMatches(strings.NewReader(output), q, func() int { return maxText })
	items, _, err := q.take(nil)
	return items, err
}

// TestLongOutputLinesParseLikeShortOnes: every layout the whole-line parser
// reads gives the same match when the line is longer than the buffer and
// is read as a stream: padded in front (a long path), in the middle (a
// long text) or at the end (a submatch list of megabytes).
func TestLongOutputLinesParseLikeShortOnes(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", readBuffer) // 2 bytes each: twice the buffer
	subs := strings.Repeat(`,{"match":{"text":"a"},"start":1,"end":2}`, 3*readBuffer/40)
	lines := []struct {
		name, line string
		want       domain.LineMatch
	}{
		{"text", `{"type":"match","data":{"path":{"text":"<stdin>"},"lines":{"text":"abc\n"},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":"b"},"start":1,"end":2}%s]}}`,
			domain.LineMatch{Index: 0, Text: "abc", Start: 1, End: 2}},
		{"bytes", `{"type":"match","data":{"lines":{"bytes":"YWJjCg=="},"line_number":2,"submatches":[{"match":{"text":"b"},"start":1,"end":2}%s]}}`,
			domain.LineMatch{Index: 1, Text: "abc", Start: 1, End: 2}},
		{"no submatches", `{"type":"match","data":{"lines":{"text":"xyz\n"},"line_number":3,"submatches":[]%s}}`,
			domain.LineMatch{Index: 2, Text: "xyz", Start: 0, End: 0}},
		{"escapes", `{"type":"match","data":{"path":{"text":"<stdin>"},"lines":{"text":"q\"\\\/\u0001\t\u00e9\ud83d\ude00\n"},"line_number":4,"absolute_offset":0,"submatches":[{"match":{"text":"\""},"start":1,"end":2}%s]}}`,
			domain.LineMatch{Index: 3, Text: "q\"\\/\x01\té😀", Start: 1, End: 2}},
	}
	for _, l := range lines {
		short := fmt.Sprintf(l.line, "")
		got, err := memCollect(short+"\n", 100)
		require.NoError(t, err, l.name)
		require.Equal(t, []domain.LineMatch{l.want}, got, "%s: the whole-line parser", l.name)

		// A long submatch list after the first submatch.
		padded := fmt.Sprintf(l.line, subs)
		if l.name == "no submatches" {
			padded = fmt.Sprintf(l.line, `,"pad":"`+long+`"`)
		}
		require.Greater(t, len(padded), readBuffer)
		got, err = memCollect(padded+"\n"+short+"\n", 100)
		require.NoError(t, err, l.name)
		assert.Equal(t, []domain.LineMatch{l.want, l.want}, got, "%s: streamed, then the next line whole", l.name)

		// A long path in front.
		front := strings.Replace(short, `"type":"match","data":{`, `"type":"match","data":{"path":{"text":"`+long+`"},`, 1)
		got, err = memCollect(front+"\n", 100)
		require.NoError(t, err, l.name)
		assert.Equal(t, []domain.LineMatch{l.want}, got, "%s: long path", l.name)
	}

	// A long line text with every character matching.
	text := strings.Repeat("a", 3*readBuffer)
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"match","data":{"path":{"text":"<stdin>"},"lines":{"text":"%s\n"},"line_number":7,"absolute_offset":0,"submatches":[`, text)
	for i := range len(text) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"match":{"text":"a"},"start":%d,"end":%d}`, i, i+1)
	}
	b.WriteString("]}}\n")
	got, err := memCollect(b.String(), len(text)+1)
	require.NoError(t, err)
	assert.Equal(t, []domain.LineMatch{{Index: 6, Text: text, Start: 0, End: 1}}, got)

	// Text longer than any line fed is refused, not buffered.
	_, err = memCollect(b.String(), 1000)
	require.ErrorIs(t, err, errOutput)

	// Other long messages are skipped; truncated ones are errors.
	got, err = memCollect(`{"type":"end","data":{"x":"`+long+`"}}`+"\n"+fmt.Sprintf(lines[0].line, "")+"\n", 100)
	require.NoError(t, err)
	assert.Equal(t, []domain.LineMatch{lines[0].want}, got)
	_, err = memCollect(fmt.Sprintf(lines[0].line, subs)[:readBuffer+10], 100)
	require.NoError(t, err, "a cut-off tail after the first submatch is never read")
	front := strings.Replace(fmt.Sprintf(lines[0].line, ""), `"data":{`, `"data":{"path":{"text":"`+long+`"},`, 1)
	_, err = memCollect(front[:readBuffer+10], 1<<20)
	require.Error(t, err)
	assert.NotErrorIs(t, err, io.EOF)
}
