package domain

import "regexp"

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

// SecretPatterns compiles every secret rule's pattern (and the readable
// value's), which the package compiles only at their first use, and
// returns them with the rule's kind ("readable-value" for the last): a
// second call returns the same compiled values.
func SecretPatterns() (kinds []string, res []*regexp.Regexp) {
	for _, r := range secretRules {
		kinds, res = append(kinds, r.kind), append(res, r.re())
	}
	return append(kinds, "readable-value"), append(res, readableValue())
}
