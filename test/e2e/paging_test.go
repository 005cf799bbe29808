package e2e_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pagingNext is the next-page part of read_query's trailer.
var pagingNext = regexp.MustCompile(`next page: offset=(\d+);`)

// TestPagingReturnsEveryRowOnce pages tables through the built binary with
// a small byte cap (--max-result-bytes 300) and cell cap (--max-cell-chars
// 200): rows far smaller than the cap, near half of it, near all of it,
// larger than it, and with cells the cell cap cuts. Following the trailers
// from offset 0, whatever cut each page (row limit or byte cap), returns
// every row exactly once, in order.
func TestPagingReturnsEveryRowOnce(t *testing.T) {
	t.Parallel()
	s := startRaw(t, "--db", newDB(t), "--max-result-bytes", "300", "--max-cell-chars", "200")
	const rows = 40
	shapes := []struct{ name, a, b string }{
		{"small", "10", "0"},
		{"near half the cap", "125", "0"},
		{"near the cap", "190", "95"},
		{"cut by the cell cap", "290", "0"},
		{"larger than the cap", "200", "150"},
		{"cut and larger than the cap", "1000", "1000"},
	}
	for i, sh := range shapes {
		table := fmt.Sprintf("p%d", i)
		// Sizes vary by row so that pages end at different places.
		out, isErr := s.callTool(t, "write_query", map[string]any{"query": "CREATE TABLE " + table + " (id INTEGER PRIMARY KEY, a TEXT, b TEXT)"})
		require.False(t, isErr, out)
		out, isErr = s.callTool(t, "write_query", map[string]any{"query": fmt.Sprintf(
			`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d)
			 INSERT INTO %s (id, a, b) SELECT i, substr(replace(hex(zeroblob(1100)), '0', 'x'), 1, %s + i %% 7),
			 substr(replace(hex(zeroblob(1100)), '0', 'y'), 1, %s + i %% 5) FROM c`, rows, table, sh.a, sh.b)})
		require.False(t, isErr, out)
		require.Equal(t, fmt.Sprintf("ok: %d rows affected (last_insert_rowid=%d)", rows, rows), out)
		for _, limit := range []int{3, 1000} {
			var ids []int
			byBytes, byLimit := 0, 0
			offset := 0
			for pages := 0; ; pages++ {
				require.Less(t, pages, 2*rows, "%s: paging does not end", sh.name)
				out, isErr := s.callTool(t, "read_query", map[string]any{"query": "SELECT id, a, b FROM " + table + " ORDER BY id", "limit": limit, "offset": offset})
				require.False(t, isErr, out)
				trailer := out[strings.LastIndexByte(out, '\n')+1:]
				body := strings.Split(strings.TrimSuffix(out[:len(out)-len(trailer)], "\n"), "\n")
				require.Equal(t, "id,a,b", body[0])
				for _, line := range body[1:] {
					id, err := strconv.Atoi(line[:strings.IndexByte(line, ',')])
					require.NoError(t, err, line)
					ids = append(ids, id)
				}
				m := pagingNext.FindStringSubmatch(trailer)
				require.Equal(t, strings.Contains(trailer, "truncated"), m != nil, "%s: a cut page names its next offset, the last one none: %q", sh.name, trailer)
				if m == nil {
					break
				}
				if strings.Contains(trailer, "bytes") {
					byBytes++
				} else {
					byLimit++
				}
				next, err := strconv.Atoi(m[1])
				require.NoError(t, err)
				require.Equal(t, offset+len(body)-1, next, "%s: %q", sh.name, trailer)
				offset = next
			}
			want := make([]int, rows)
			for i := range want {
				want[i] = i + 1
			}
			assert.Equal(t, want, ids, "%s, limit %d: every row exactly once, in order", sh.name, limit)
			if limit == 1000 {
				assert.Positive(t, byBytes, "%s: the byte cap cut some page", sh.name)
			}
			t.Logf("%s, limit %d: %d pages cut by bytes, %d by the limit", sh.name, limit, byBytes, byLimit)
		}
	}
}
