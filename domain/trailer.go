package domain

import "strconv"

// Trailer is the "# N rows" line that follows a CSV body (docs/decisions.md#trailer,
// with its paging form). Its String never ends with a newline.
type Trailer struct {
	// Rows is the number of data rows shown.
	Rows int
	// TruncatedAtBytes is the max_bytes value when the byte cap cut the
	// body, and 0 when it did not.
	TruncatedAtBytes int
	// MoreRows reports that more rows exist beyond Limit.
	MoreRows bool
	// Limit and MaxRows are named in the limit message when MoreRows is set.
	Limit, MaxRows int
	// NextOffset is the offset of the next page. In the paging form it is
	// named whenever the page was cut, by the row limit or the byte cap:
	// a row the byte cap refused exists, so more rows exist then too.
	NextOffset int
	// Paging selects read_query's paging form: every cut page names the
	// next offset.
	Paging bool
	// CellsCut is the number of cells cut to MaxCellChars code points.
	CellsCut, MaxCellChars int
}

// String spells the trailer. Byte truncation takes precedence over the limit
// message, and the word is always "rows", even for one row. In the paging
// form both messages name the next page, so following the trailers from
// offset 0 returns every row exactly once:
//
//	# 3 rows, truncated at 4096 bytes (more rows exist; next page: offset=3; select fewer columns or narrow the query)
func (t Trailer) String() string {
	b := make([]byte, 0, 160)
	b = append(b, "# "...)
	b = strconv.AppendInt(b, int64(t.Rows), 10)
	b = append(b, " rows"...)
	switch {
	case t.TruncatedAtBytes > 0:
		b = append(b, ", truncated at "...)
		b = strconv.AppendInt(b, int64(t.TruncatedAtBytes), 10)
		b = append(b, " bytes ("...)
		if t.Paging {
			b = append(b, "more rows exist; next page: offset="...)
			b = strconv.AppendInt(b, int64(t.NextOffset), 10)
			b = append(b, "; "...)
		}
		b = append(b, "select fewer columns or narrow the query)"...)
	case t.MoreRows:
		b = append(b, ", truncated by limit="...)
		b = strconv.AppendInt(b, int64(t.Limit), 10)
		b = append(b, " (more rows exist; "...)
		if t.Paging {
			b = append(b, "next page: offset="...)
			b = strconv.AppendInt(b, int64(t.NextOffset), 10)
			b = append(b, "; "...)
		}
		b = append(b, "raise limit up to "...)
		b = strconv.AppendInt(b, int64(t.MaxRows), 10)
		b = append(b, " or narrow the query)"...)
	}
	if t.CellsCut > 0 {
		b = append(b, "; "...)
		b = strconv.AppendInt(b, int64(t.CellsCut), 10)
		b = append(b, " cells cut to "...)
		b = strconv.AppendInt(b, int64(t.MaxCellChars), 10)
		b = append(b, " chars"...)
	}
	return string(b)
}
