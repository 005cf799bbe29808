package domain_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// benchRows builds n rows of 6 mixed columns as the SQLite adapter hands
// them over: integers, reals, short and longer text, a blob and NULLs.
func benchRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var note any
		if i%3 != 0 {
			note = fmt.Sprintf("note %d, with a comma and a \"quote\"", i)
		}
		rows[i] = []any{
			int64(i),
			float64(i) * 1.25,
			fmt.Sprintf("title number %d", i),
			note,
			math.Sqrt(float64(i)),
			fmt.Sprintf("body text of row %d that is a little longer than the title, as text columns tend to be", i),
		}
	}
	return rows
}

func BenchmarkTableWriter1000x6(b *testing.B) {
	rows := benchRows(1000)
	columns := []string{"id", "score", "title", "note", "root", "body"}
	b.Run("uncapped", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			w := domain.NewTableWriter(columns, 1<<30, 2000)
			for _, row := range rows {
				w.Add(row)
			}
			n = w.Len()
		}
		b.SetBytes(int64(n))
	})
	b.Run("default caps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w := domain.NewTableWriter(columns, domain.DefaultLimits().MaxResultBytes, 2000)
			for _, row := range rows {
				if !w.Add(row) {
					break
				}
			}
		}
	})
}

func BenchmarkFormatFloat(b *testing.B) {
	values := []float64{2, 0.1, 1.0 / 3, 1e16, 1e-7, 123456.789}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range values {
			_ = domain.FormatFloat(f)
		}
	}
}
