package domain

import (
	"math"
	"strconv"
)

// TableData is a result table as typed JSON values, kept beside its CSV for
// clients that asked for structured results: Columns as in the CSV header,
// and each row the CSV shows, with the same cuts. A value is nil (NULL), an
// int64 or a float64 (a number; an integer beyond ±2^53, which JSON numbers
// cannot hold exactly in every client, and NaN or ±Inf are their CSV text),
// a string (text, cut like the CSV cell), or for a BLOB a
// map {"blob_bytes": N}: blob contents are never read, in CSV or here.
type TableData struct {
	Columns []string
	Rows    [][]any
}

// maxExactInt is the largest integer a float64 holds exactly (2^53).
const maxExactInt = 1 << 53

// jsonRow converts one accepted row into TableData values.
func jsonRow(row []any, maxCellChars int) []any {
	out := make([]any, len(row))
	for i, v := range row {
		switch x := v.(type) {
		case nil:
		case int64:
			if x > maxExactInt || x < -maxExactInt {
				out[i] = strconv.FormatInt(x, 10)
			} else {
				out[i] = x
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				out[i] = FormatFloat(x)
			} else {
				out[i] = x
			}
		case []byte:
			out[i] = map[string]any{"blob_bytes": len(x)}
		case Blob:
			out[i] = map[string]any{"blob_bytes": int(x)}
		default:
			out[i], _ = FormatCell(v, maxCellChars)
		}
	}
	return out
}

// Keep makes w also record every row it accepts into d, as typed values;
// d.Columns is set at once.
func (w *TableWriter) Keep(d *TableData, columns []string) {
	d.Columns = append([]string{}, columns...)
	d.Rows = [][]any{}
	w.keep = d
}
