package sqlite

import "strings"

// quoteIdent quotes name as an SQL identifier: in double quotes, with every
// double quote inside doubled. Only this adapter writes SQL text, so the
// quoting lives here.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
