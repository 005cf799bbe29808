package app_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

var nextPage = regexp.MustCompile(`next page: offset=(\d+);`)

// followPages reads from offset 0 on, following each trailer's next page,
// and returns the ids seen in order.
func followPages(t *testing.T, svc *app.Service, limit int) []int64 {
	t.Helper()
	var ids []int64
	offset := 0
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10000, "paging does not end")
		out, err := text(svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT id, body FROM t ORDER BY id", Limit: limit, Offset: offset}))
		require.NoError(t, err)
		trailer := out[strings.LastIndexByte(out, '\n')+1:]
		lines := strings.Split(strings.TrimSuffix(out[:len(out)-len(trailer)], "\n"), "\n")[1:]
		for _, l := range lines {
			// A body never holds a comma, a quote or a newline here, so
			// the id is the text before the first comma.
			id, err := strconv.ParseInt(l[:strings.IndexByte(l, ',')], 10, 64)
			require.NoError(t, err, l)
			ids = append(ids, id)
		}
		m := nextPage.FindStringSubmatch(trailer)
		cut := strings.Contains(trailer, "truncated")
		require.Equal(t, cut, m != nil, "a cut page names its next offset, a last page names none: %q", trailer)
		if m == nil {
			return ids
		}
		next, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		require.Equal(t, offset+len(lines), next, "next offset is this offset plus the rows shown: %q", trailer)
		require.Greater(t, next, offset, "every page makes progress")
		offset = next
	}
}

// TestReadQueryPagingReturnsEveryRowOnce pages tables whose rows are
// smaller than, near and larger than the byte cap, with cells cut by the
// cell cap, under several row limits: the union of the pages is every row
// exactly once, in order, whatever cut each page.
func TestReadQueryPagingReturnsEveryRowOnce(t *testing.T) {
	t.Parallel()
	const maxBytes, maxCell = 200, 150
	for _, size := range []int{1, 10, 60, 95, 140, 149, 150, 151, 190, 199, 200, 201, 400} {
		for _, limit := range []int{1, 2, 3, 7, 1000} {
			t.Run(fmt.Sprintf("body=%d,limit=%d", size, limit), func(t *testing.T) {
				t.Parallel()
				var rows [][]any
				for i := range 37 {
					// Sizes vary a little from row to row so that cuts
					// fall at different places.
					rows = append(rows, []any{int64(i + 1), strings.Repeat("x", size+i%5)})
				}
				l := domain.DefaultLimits()
				l.MaxResultBytes, l.MaxCellChars, l.MaxRows = maxBytes, maxCell, 1000
				db := fake.NewStore()
				db.Statements.Columns, db.Statements.Rows = []string{"id", "body"}, rows
				svc := app.New(app.Deps{Statements: db, Schema: db, Views: db, Candidates: db, Memory: db, Audit: db, Clock: fake.NewClock(epoch)},
					app.Options{Limits: l})
				ids := followPages(t, svc, limit)
				want := make([]int64, len(rows))
				for i := range want {
					want[i] = int64(i + 1)
				}
				assert.Equal(t, want, ids)
			})
		}
	}
}
