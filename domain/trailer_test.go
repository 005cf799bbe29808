package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestTrailerString(t *testing.T) {
	t.Parallel()
	const (
		bytesPart  = ", truncated at 32768 bytes (select fewer columns or narrow the query)"
		limitPart  = ", truncated by limit=2 (more rows exist; raise limit up to 50 or narrow the query)"
		pagingPart = ", truncated by limit=2 (more rows exist; next page: offset=12; raise limit up to 50 or narrow the query)"
		cellsPart  = "; 3 cells cut to 2000 chars"
		// pagedBytesPart is read_query's byte cut: it names the next page too.
		pagedBytesPart = ", truncated at 32768 bytes (more rows exist; next page: offset=12; select fewer columns or narrow the query)"
	)
	more := domain.Trailer{Rows: 2, MoreRows: true, Limit: 2, MaxRows: 50, NextOffset: 12}
	cases := []struct {
		name string
		in   domain.Trailer
		want string
	}{
		{"zero rows", domain.Trailer{}, "# 0 rows"},
		{"one row keeps the plural", domain.Trailer{Rows: 1}, "# 1 rows"},
		{"plain", domain.Trailer{Rows: 3}, "# 3 rows"},
		{"truncated by bytes", domain.Trailer{Rows: 2, TruncatedAtBytes: 32768}, "# 2 rows" + bytesPart},
		{"truncated by limit", more, "# 2 rows" + limitPart},
		{"truncated by limit, paging", with(more, func(t *domain.Trailer) { t.Paging = true }), "# 2 rows" + pagingPart},
		{
			"bytes win over limit",
			with(more, func(t *domain.Trailer) { t.TruncatedAtBytes = 32768 }),
			"# 2 rows" + bytesPart,
		},
		{
			"bytes win over paging and still name the next page",
			with(more, func(t *domain.Trailer) { t.TruncatedAtBytes = 32768; t.Paging = true }),
			"# 2 rows" + pagedBytesPart,
		},
		{
			"bytes alone, paging, name the next page",
			domain.Trailer{Rows: 2, TruncatedAtBytes: 32768, Paging: true, NextOffset: 12},
			"# 2 rows" + pagedBytesPart,
		},
		{
			"bytes, paging and cells cut",
			domain.Trailer{Rows: 2, TruncatedAtBytes: 32768, Paging: true, NextOffset: 12, CellsCut: 3, MaxCellChars: 2000},
			"# 2 rows" + pagedBytesPart + cellsPart,
		},
		{"paging without more rows is plain", domain.Trailer{Rows: 7, Paging: true, Limit: 10, NextOffset: 7}, "# 7 rows"},
		{"cells cut only", domain.Trailer{Rows: 4, CellsCut: 3, MaxCellChars: 2000}, "# 4 rows" + cellsPart},
		{
			"bytes and cells cut",
			domain.Trailer{Rows: 2, TruncatedAtBytes: 32768, CellsCut: 3, MaxCellChars: 2000},
			"# 2 rows" + bytesPart + cellsPart,
		},
		{
			"limit and cells cut",
			with(more, func(t *domain.Trailer) { t.CellsCut = 3; t.MaxCellChars = 2000 }),
			"# 2 rows" + limitPart + cellsPart,
		},
		{
			"paging and cells cut",
			with(more, func(t *domain.Trailer) { t.Paging = true; t.CellsCut = 3; t.MaxCellChars = 2000 }),
			"# 2 rows" + pagingPart + cellsPart,
		},
		{"max cell chars alone says nothing", domain.Trailer{Rows: 1, MaxCellChars: 2000}, "# 1 rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.in.String()
			assert.Equal(t, tc.want, got)
			assert.False(t, strings.HasSuffix(got, "\n"), "trailer never ends with a newline")
		})
	}
}

// with returns a copy of t changed by edit.
func with(t domain.Trailer, edit func(*domain.Trailer)) domain.Trailer {
	edit(&t)
	return t
}

func TestSpecTrailerExamples(t *testing.T) {
	t.Parallel()
	t.Run("full output of a small table", func(t *testing.T) {
		t.Parallel()
		w := domain.RenderTable([]string{"id", "title"},
			[][]any{{int64(1), "alpha"}, {int64(2), "beta"}, {int64(3), "gamma"}}, 32768, 2000)
		tr := domain.Trailer{Rows: w.Rows(), CellsCut: w.CellsCut(), MaxCellChars: 2000}
		assert.Equal(t, "id,title\n1,alpha\n2,beta\n3,gamma\n# 3 rows", w.Body()+tr.String())
	})
	t.Run("limit trailer", func(t *testing.T) {
		t.Parallel()
		tr := domain.Trailer{Rows: 2, MoreRows: true, Limit: 2, MaxRows: 50}
		assert.Equal(t, "# 2 rows, truncated by limit=2 (more rows exist; raise limit up to 50 or narrow the query)", tr.String())
	})
	t.Run("paging trailer of docs/decisions.md#trailer", func(t *testing.T) {
		t.Parallel()
		tr := domain.Trailer{Rows: 2, MoreRows: true, Limit: 2, MaxRows: 50, NextOffset: 4, Paging: true}
		assert.Equal(t, "# 2 rows, truncated by limit=2 (more rows exist; next page: offset=4; raise limit up to 50 or narrow the query)", tr.String())
	})
}
