package domain

import (
	"strconv"
	"strings"
)

// RenderDescription renders describe_table's output: the reference's
// sections (columns, foreign keys, indexes), each byte-capped at maxBytes and
// saying so when cut, then the row count and the stored CREATE statement.
// The whole text is capped at 3 x maxBytes (docs/decisions.md#schema-output).
func RenderDescription(d TableDescription, maxBytes, maxCellChars int) string {
	var sections []string
	// A cut section names where the rest is: the pragma it was read from.
	section := func(title, pragma string, w *TableWriter) {
		body := "# " + title + "\n" + w.Body()
		if w.TruncatedByBytes() {
			body += "# " + title + " truncated at " + strconv.Itoa(maxBytes) + " bytes; read them all with " + ToolReadQuery + " on " + pragma + "\n"
		}
		sections = append(sections, strings.TrimRight(body, "\n"))
	}
	cols := NewTableWriter([]string{"cid", "name", "type", "notnull", "default", "pk"}, maxBytes, maxCellChars)
	for _, c := range d.Columns {
		var dflt any
		if c.Default != nil {
			dflt = *c.Default
		}
		if !cols.Add([]any{c.CID, c.Name, c.Type, flag(c.NotNull), dflt, c.PK}) {
			break
		}
	}
	section("columns", "pragma_table_info", cols)
	if len(d.ForeignKeys) > 0 {
		fks := NewTableWriter([]string{"from", "to_table", "to_column"}, maxBytes, maxCellChars)
		for _, f := range d.ForeignKeys {
			if !fks.Add([]any{f.From, f.Table, f.To}) {
				break
			}
		}
		section("foreign_keys", "pragma_foreign_key_list", fks)
	}
	if len(d.Indexes) > 0 {
		ix := NewTableWriter([]string{"name", "unique", "origin", "columns"}, maxBytes, maxCellChars)
		for _, i := range d.Indexes {
			if !ix.Add([]any{i.Name, flag(i.Unique), i.Origin, strings.Join(i.Columns, ",")}) {
				break
			}
		}
		section("indexes", "pragma_index_list", ix)
	}
	if d.Rows >= 0 {
		sections = append(sections, "# rows\n"+strconv.FormatInt(d.Rows, 10))
	}
	if d.SQL != "" {
		sections = append(sections, "# sql\n"+strings.TrimSpace(d.SQL)+";")
	}
	return capText(strings.Join(sections, "\n\n"), 3*maxBytes,
		"-- "+ToolDescribeTable+" output truncated at %d bytes; read the rest with "+ToolReadQuery+" on pragma_table_info, pragma_index_list or sqlite_schema")
}

func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// capText cuts s to at most max bytes at a line boundary (never inside a
// UTF-8 sequence) and appends the note, formatted with max.
func capText(s string, max int, note string) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], '\n')
	if cut <= 0 {
		cut = max
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
	}
	return s[:cut] + "\n" + strings.Replace(note, "%d", strconv.Itoa(max), 1)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// RenderSchema renders get_schema's output (docs/decisions.md#schema-output) and returns how many
// statements it shows. Server objects (and Litestream's) are hidden unless includeSystem; the
// text is capped at maxBytes and says so.
func RenderSchema(objs []SchemaObject, includeSystem bool, maxBytes int) (string, int) {
	var stmts []string
	hidden := 0
	for _, o := range objs {
		if !includeSystem && (IsServerTable(o.TableName) || IsServerObject(o.Name) || IsReplicationName(o.TableName) || IsReplicationName(o.Name)) {
			hidden++
			continue
		}
		stmts = append(stmts, strings.TrimSpace(o.SQL)+";")
	}
	header := "-- " + strconv.Itoa(len(stmts)) + " objects"
	if hidden > 0 {
		header += " (" + strconv.Itoa(hidden) + " server objects hidden; include_system=true shows them)"
	}
	if len(stmts) == 0 {
		return header + "\n-- no user tables or views yet", 0
	}
	var b strings.Builder
	b.WriteString(header)
	shown := 0
	for _, st := range stmts {
		if shown > 0 && b.Len()+2+len(st) > maxBytes {
			b.WriteString("\n\n-- output truncated at " + strconv.Itoa(maxBytes) + " bytes: " +
				strconv.Itoa(len(stmts)-shown) + " more objects not shown; use " + ToolDescribeTable + ", or " + ToolReadQuery + " on sqlite_schema")
			return b.String(), shown
		}
		b.WriteString("\n\n")
		b.WriteString(st)
		shown++
	}
	return b.String(), shown
}
