package domain_test

import (
	"fmt"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// A TableWriter turns rows into the CSV every table tool answers with, as
// they are stepped: NULL is an empty cell and the empty string is "", a
// REAL is spelled as Python spells it, a BLOB is never returned, and a
// field is quoted only when it must be. Add refuses a row once the body
// would pass the byte cap (the first row is always kept), so the caller
// stops stepping; the trailer then names the next page.
func ExampleTableWriter() {
	w := domain.NewTableWriter([]string{"id", "title", "body", "score"}, 100, 2000)
	rows := [][]any{
		{int64(1), "hello", nil, 2.0},
		{int64(2), "a, b", "", 1e-05},
		{int64(3), "say \"hi\"", []byte{0, 1, 2}, nil},
		{int64(4), "this row would pass the 100-byte cap", "x", 0.5},
	}
	for _, row := range rows {
		if !w.Add(row) {
			break
		}
	}
	fmt.Print(w.Body())
	t := domain.Trailer{Rows: w.Rows(), Paging: true, NextOffset: w.Rows()}
	if w.TruncatedByBytes() {
		t.TruncatedAtBytes = 100
	}
	fmt.Println(t)
	// Output:
	// id,title,body,score
	// 1,hello,,2.0
	// 2,"a, b","",1e-05
	// 3,"say ""hi""",<blob 3 bytes>,
	// # 3 rows, truncated at 100 bytes (more rows exist; next page: offset=3; select fewer columns or narrow the query)
}
