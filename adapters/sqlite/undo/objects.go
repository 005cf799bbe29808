package undo

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"sort"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The user objects of one schema (main, or the attached snapshot) as undo
// compares them: sqlite_schema's entries, and for each table a SHA-256
// digest of every value of every row, in rowid order (a WITHOUT ROWID
// table's: key order), typed (the integer 1, the real 1.0, the text '1'
// and the blob x'31' differ), rowid included, and its AUTOINCREMENT
// counter. A virtual table's digest is its shadow tables' (FTS5's _data,
// _idx, _content, _docsize, _config), which hold all it stores.

// tableShape is what pragma_table_list says of a table.
type tableShape struct {
	kind         string // table, virtual, shadow
	withoutRowid bool
}

// sqlText is s as an SQL string literal.
func sqlText(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// queryRows steps q on h and calls fn with each row's statement.
func queryRows(h engine.Handle, q string, fn func(engine.Stmt) error) error {
	st, _, err := h.Prepare(q)
	if err != nil {
		return err
	}
	defer st.Finalize()
	for {
		more, err := st.Step()
		if err != nil || !more {
			return err
		}
		if err := fn(st); err != nil {
			return err
		}
	}
}

// tableShapes are schema's tables by lower-cased name.
func tableShapes(h engine.Handle, schema string) (map[string]tableShape, error) {
	out := map[string]tableShape{}
	err := queryRows(h, "SELECT name, type, wr FROM pragma_table_list WHERE schema = "+sqlText(schema), func(st engine.Stmt) error {
		out[strings.ToLower(st.Text(0))] = tableShape{kind: st.Text(1), withoutRowid: st.Int64(2) != 0}
		return nil
	})
	return out, err
}

// shadowsOf are the shadow tables of virtual table vtab, sorted: SQLite
// calls a table a shadow of the virtual table named like it up to its
// last underscore.
func shadowsOf(shapes map[string]tableShape, vtab string) []string {
	var out []string
	for name, sh := range shapes {
		if i := strings.LastIndexByte(name, '_'); sh.kind == "shadow" && i > 0 && name[:i] == strings.ToLower(vtab) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// readUndoObjects reads schema's user objects with the digests of the
// tables digest accepts (nil: all; the others' Content stays "").
func readUndoObjects(h engine.Handle, schema string, digest func(name string) bool) (domain.UndoObjects, error) {
	shapes, err := tableShapes(h, schema)
	if err != nil {
		return nil, err
	}
	var objs domain.UndoObjects
	hasSeq := false
	q := "SELECT type, name, tbl_name, coalesce(sql, '') FROM " + sqlite.QuoteIdent(schema) + ".sqlite_schema ORDER BY rowid"
	err = queryRows(h, q, func(st engine.Stmt) error {
		o := domain.UndoObject{Type: st.Text(0), Name: st.Text(1), Table: st.Text(2), SQL: st.Text(3)}
		if strings.EqualFold(o.Name, "sqlite_sequence") {
			hasSeq = true
		}
		if !domain.IsUserObject(o.Name, o.Table) || shapes[strings.ToLower(o.Name)].kind == "shadow" {
			return nil
		}
		o.Virtual = o.IsTable() && shapes[strings.ToLower(o.Name)].kind == "virtual"
		objs = append(objs, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, o := range objs {
		if !o.IsTable() || digest != nil && !digest(o.Name) {
			continue
		}
		d := sha256.New()
		tables := []string{o.Name}
		if o.Virtual {
			tables = shadowsOf(shapes, o.Name)
		}
		for _, t := range tables {
			n, err := digestTable(h, d, schema, t, shapes[strings.ToLower(t)])
			if err != nil {
				return nil, err
			}
			objs[i].Rows += n
		}
		if hasSeq {
			seq := "SELECT seq FROM " + sqlite.QuoteIdent(schema) + ".sqlite_sequence WHERE name = " + sqlText(o.Name)
			if _, err := digestRows(h, d, seq); err != nil {
				return nil, err
			}
		}
		objs[i].Content = hex.EncodeToString(d.Sum(nil))
	}
	return objs, nil
}

// rowidName is a name that reaches the rowid of a table with these
// columns, "" when its columns hide all three.
func rowidName(cols []string) string {
	for _, alias := range []string{"rowid", "_rowid_", "oid"} {
		taken := false
		for _, c := range cols {
			taken = taken || strings.EqualFold(c, alias)
		}
		if !taken {
			return alias
		}
	}
	return ""
}

// tableColumns are table's columns as pragma_table_xinfo lists them, and
// which of them can be written (not generated, not a virtual table's
// hidden column).
func tableColumns(h engine.Handle, schema, table string) (all, writable []string, err error) {
	q := "SELECT name, hidden FROM pragma_table_xinfo(" + sqlText(table) + ", " + sqlText(schema) + ") ORDER BY cid"
	err = queryRows(h, q, func(st engine.Stmt) error {
		name := st.Text(0)
		all = append(all, name)
		if st.Int64(1) == 0 {
			writable = append(writable, name)
		}
		return nil
	})
	return all, writable, err
}

// digestTable adds table's name and rows to d and returns the row count.
func digestTable(h engine.Handle, d hash.Hash, schema, table string, sh tableShape) (int64, error) {
	d.Write([]byte(strings.ToLower(table)))
	d.Write([]byte{0})
	from := sqlite.QuoteIdent(schema) + "." + sqlite.QuoteIdent(table)
	if sh.withoutRowid {
		var keys []string
		q := "SELECT name FROM pragma_table_info(" + sqlText(table) + ", " + sqlText(schema) + ") WHERE pk > 0 ORDER BY pk"
		if err := queryRows(h, q, func(st engine.Stmt) error { keys = append(keys, sqlite.QuoteIdent(st.Text(0))); return nil }); err != nil {
			return 0, err
		}
		return digestRows(h, d, "SELECT * FROM "+from+" ORDER BY "+strings.Join(keys, ", "))
	}
	all, _, err := tableColumns(h, schema, table)
	if err != nil {
		return 0, err
	}
	if r := rowidName(all); r != "" {
		return digestRows(h, d, "SELECT "+r+", * FROM "+from+" ORDER BY "+r)
	}
	return digestRows(h, d, "SELECT * FROM "+from)
}

// digestRows adds every typed value of q's rows to d.
func digestRows(h engine.Handle, d hash.Hash, q string) (int64, error) {
	var n int64
	err := queryRows(h, q, func(st engine.Stmt) error {
		n++
		st.WriteTyped(d)
		return nil
	})
	return n, err
}
