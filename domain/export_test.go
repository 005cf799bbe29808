package domain

// RenderTable writes rows through a [TableWriter] until the byte cap refuses
// one. Production code streams rows into a TableWriter as they are stepped;
// the tests build whole tables at once, so this lives with the tests.
func RenderTable(columns []string, rows [][]any, maxBytes, maxCellChars int) *TableWriter {
	w := NewTableWriter(columns, maxBytes, maxCellChars)
	for _, row := range rows {
		if !w.Add(row) {
			break
		}
	}
	return w
}
