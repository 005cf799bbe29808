package domain

import (
	"fmt"
	"strconv"
	"strings"
)

// TableInfo is one row of list_tables.
type TableInfo struct {
	Name string
	// Type is "table" or "view".
	Type string
	// Rows is the row count, or -1 when not counted.
	Rows int64
}

// System reports whether the object belongs to the server, or to
// Litestream when it replicates the database.
func (t TableInfo) System() bool { return IsServerObject(t.Name) || IsReplicationName(t.Name) }

// Column is one column of a table or view.
type Column struct {
	CID     int64
	Name    string
	Type    string
	NotNull bool
	// Default is the declared default's SQL text; nil when there is none.
	Default *string
	PK      int64
}

// ForeignKey is one foreign-key column mapping.
type ForeignKey struct{ From, Table, To string }

// Index is one index of a table.
type Index struct {
	Name   string
	Unique bool
	Origin string
	// Columns are the indexed column names; "<expr>" for an expression.
	Columns []string
}

// TableDescription is what describe_table reports.
type TableDescription struct {
	Name        string
	Type        string
	Columns     []Column
	ForeignKeys []ForeignKey
	Indexes     []Index
	// Rows is the row count (-1 when it could not be counted in time).
	Rows int64
	// SQL is the CREATE statement as stored.
	SQL string
}

// SchemaObject is one stored schema entry.
type SchemaObject struct {
	Type, Name, TableName, SQL string
}

// View is a view create_view stores: its validated name
// ([ValidateViewName]), the agent's description of it, and its SELECT
// ([NormalizeViewBody]). How it is written down as SQL is the store's
// business.
type View struct {
	Name, Description, Body string
}

// CandidateQuery selects the rows search_text scans.
type CandidateQuery struct {
	Table string
	// KeyColumn is the key column, or "" for rowid.
	KeyColumn string
	Columns   []string
	// Where is an SQL condition written by the agent, or "".
	Where string
	// Limit is the candidate cap; the query never yields more rows.
	Limit int
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Quote spells s the way Python's repr() spells a string, which the
// reference's messages use: single quotes, unless s holds a single quote and
// no double quote.
func Quote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// QuoteList spells names as a Python list repr: ['a', 'b'].
func QuoteList(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = Quote(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// IsTextColumn reports whether a declared column type holds text for
// search_text's default column choice: no declared type, or one containing
// CHAR, TEXT or CLOB (SQLite's own text-affinity rule).
func IsTextColumn(declared string) bool {
	t := strings.ToUpper(declared)
	return strings.TrimSpace(t) == "" || strings.Contains(t, "CHAR") || strings.Contains(t, "TEXT") || strings.Contains(t, "CLOB")
}
