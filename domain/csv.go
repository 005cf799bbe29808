package domain

import "strings"

// AppendCSVLine appends fields, all of them text, as one CSV line ending in
// "\n", following the Python csv "excel" dialect the reference server uses:
// fields are joined by ",", a field is quoted when it holds ',', '"', '\n' or
// '\r', and an inner '"' is doubled. Leading or trailing spaces, tabs and '#'
// are not quoted (unlike encoding/csv). An empty field is text, so it is
// written as `""` (see [AppendCSVRow] for the rule); a row of zero fields is
// an empty line.
func AppendCSVLine(dst []byte, fields []string) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendField(dst, f, needsQuote(f) || f == "", nil)
	}
	return append(dst, '\n')
}

// AppendCSVRow appends row as one CSV line ending in "\n", each value spelled
// as by [FormatCell] and cut to maxCellChars code points, and returns how many
// cells were cut. It is the one rule every CSV answer follows for NULL and
// empty text: NULL is an empty cell and the empty string is `""` (valid CSV
// either way), so the two never look alike. A row holding a single NULL is
// an empty line. This is the one deliberate change to the reference's bytes,
// which wrote both as an empty cell.
func AppendCSVRow(dst []byte, row []any, maxCellChars int) ([]byte, int) {
	cut := 0
	for i, v := range row {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch x := v.(type) {
		case nil:
		case string:
			dst, cut = appendText(dst, x, maxCellChars, cut)
		case []byte:
			dst = appendBlob(dst, len(x))
		case LongText:
			keep, excess := x.cut(maxCellChars)
			s := x.Head[:keep]
			var mark [32]byte
			tail := []byte(nil)
			if excess > 0 {
				tail = appendCutMark(mark[:0], excess)
				cut++
			}
			dst = appendField(dst, s, needsQuote(s) || (s == "" && excess == 0), tail)
		default:
			var ok bool
			if dst, ok = appendScalar(dst, v); !ok {
				text, c := FormatCell(v, maxCellChars)
				dst = appendField(dst, text, needsQuote(text) || text == "", nil)
				if c {
					cut++
				}
			}
		}
	}
	return append(dst, '\n'), cut
}

// needsQuote reports whether a field holds a byte that makes the excel
// dialect quote it. A lone '\r' counts (docs/decisions.md#csv).
// It tests eight bytes at a time: this scan runs over every byte of every
// text cell, so it dominates rendering when done byte by byte.
func needsQuote(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if hasByte(x, ',')|hasByte(x, '"')|hasByte(x, '\n')|hasByte(x, '\r') != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			return true
		}
	}
	return false
}

// hasByte is non-zero exactly when one of the eight bytes of x equals b
// (the classic "has zero byte" test applied to x XOR b repeated).
func hasByte(x uint64, b byte) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	v := x ^ (ones * uint64(b))
	return (v - ones) &^ v & highs
}

// appendField appends s followed by tail, wrapped in quotes with inner quotes
// doubled when quote is set. tail never holds a quote or separator.
func appendField(dst []byte, s string, quote bool, tail []byte) []byte {
	if !quote {
		dst = append(dst, s...)
		return append(dst, tail...)
	}
	dst = append(dst, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, '"')
		s = s[i+1:]
	}
	dst = append(dst, s...)
	dst = append(dst, tail...)
	return append(dst, '"')
}

// TableWriter renders result rows as capped CSV while they are stepped, so a
// result is never held in memory beyond the output itself (docs/decisions.md#fixes-over-the-reference, item 8).
// The header is always written; the first data row is always kept, and a
// later row is refused when it would take the body past maxBytes. Cells are
// cut to maxCellChars code points. Build it with [NewTableWriter].
type TableWriter struct {
	body         strings.Builder
	line         []byte
	maxBytes     int
	maxCellChars int
	rows         int
	cellsCut     int
	truncated    bool
	reserve      int        // the body's size after its one large growth
	keep         *TableData // rows as typed values too, when asked (Keep)
}

// tableFirstGrow is the body's first reservation, in bytes.
const tableFirstGrow = 2 << 10

// NewTableWriter starts a table with the given column names as its header
// line; the header's bytes count against maxBytes at once. Column names are
// never cut.
func NewTableWriter(columns []string, maxBytes, maxCellChars int) *TableWriter {
	w := &TableWriter{maxBytes: maxBytes, maxCellChars: maxCellChars}
	w.line = AppendCSVLine(make([]byte, 0, 256), columns)
	// Most answers are a few rows: reserving the whole cap (32 KiB by
	// default) for each cost every call that much garbage. So the body
	// starts small and, when a row does not fit, grows once to the cap
	// (bounded for huge caps), past which it doubles as usual.
	w.reserve = min(max(maxBytes, 0), 64<<10) + len(w.line)
	w.body.Grow(min(w.reserve, tableFirstGrow))
	w.body.Write(w.line)
	return w
}

// Add formats row and appends it as one CSV line unless the byte cap refuses
// it; the first data row is always accepted. Add returns false once the cap
// has refused a row, and from then on does nothing: the caller stops stepping
// and reports the truncation. Values are spelled as by [FormatCell].
func (w *TableWriter) Add(row []any) bool {
	if w.truncated {
		return false
	}
	line, cut := w.appendRow(w.line[:0], row)
	w.line = line
	if w.rows > 0 && w.body.Len()+len(line) > w.maxBytes {
		w.truncated = true
		return false
	}
	if w.body.Cap()-w.body.Len() < len(line) && w.body.Cap() < w.reserve {
		w.body.Grow(w.reserve - w.body.Len())
	}
	w.body.Write(line)
	w.rows++
	if w.keep != nil {
		w.keep.Rows = append(w.keep.Rows, jsonRow(row, w.maxCellChars))
	}
	// Cells of a refused row are not counted: that row is not shown
	// (docs/decisions.md#csv: the reference counted them).
	w.cellsCut += cut
	return true
}

// appendRow appends one formatted CSV line to dst, which must be empty, and
// returns how many cells in it were cut.
func (w *TableWriter) appendRow(dst []byte, row []any) ([]byte, int) {
	return AppendCSVRow(dst, row, w.maxCellChars)
}

// appendText appends a text cell, cut and quoted as needed (the empty string
// as `""`), and returns the updated count of cut cells.
func appendText(dst []byte, s string, maxCellChars, cut int) ([]byte, int) {
	keep, excess := cutPoint(s, maxCellChars)
	if excess == 0 {
		return appendField(dst, s, s == "" || needsQuote(s), nil), cut
	}
	var mark [32]byte
	s = s[:keep]
	return appendField(dst, s, needsQuote(s), appendCutMark(mark[:0], excess)), cut + 1
}

// Rows is the number of data rows written.
func (w *TableWriter) Rows() int { return w.rows }

// TruncatedByBytes reports whether the byte cap refused a row.
func (w *TableWriter) TruncatedByBytes() bool { return w.truncated }

// CellsCut is the number of cells cut to the cell cap in the rows written.
func (w *TableWriter) CellsCut() int { return w.cellsCut }

// Body is the header plus the data lines written, each ending in "\n".
func (w *TableWriter) Body() string { return w.body.String() }

// Len is the number of bytes in [TableWriter.Body] so far.
func (w *TableWriter) Len() int { return w.body.Len() }
