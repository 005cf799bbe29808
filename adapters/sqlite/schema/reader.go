// Package schema is the SQLite adapter's schema reader (list_tables,
// describe_table, get_schema) and view writer (create_view).
package schema

import (
	"context"
	"database/sql"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Reader answers list_tables, describe_table and get_schema from
// SQLite's own catalog, on db's read connections: it reads, and runs no
// agent SQL.
type Reader struct {
	db *sqlite.Store
}

var _ ports.SchemaReader = (*Reader)(nil)

// NewReader returns the schema reader of db.
func NewReader(db *sqlite.Store) *Reader {
	return &Reader{db: db}
}

// notShadow keeps schema rows that are not real shadow tables, as SQLite
// itself classifies them (docs/decisions.md#fixes-over-the-reference, item 2), and not internal objects (item 3: an exact,
// case-insensitive "sqlite_" prefix, never a LIKE pattern).
const notShadow = `NOT EXISTS (SELECT 1 FROM pragma_table_list l
      WHERE l.schema = 'main' AND l.type = 'shadow' AND l.name = m.%s)
  AND lower(substr(m.name, 1, 7)) <> 'sqlite_'`

func notShadowOf(col string) string { return strings.Replace(notShadow, "%s", col, 1) }

// Tables lists tables and views in list_tables order.
func (sr *Reader) Tables(ctx context.Context, counts bool) ([]domain.TableInfo, error) {
	if err := sr.db.CheckFile(); err != nil {
		return nil, err
	}
	rows, err := sr.db.Readers().QueryContext(ctx, `SELECT m.name, m.type FROM sqlite_schema m
WHERE m.type IN ('table', 'view') AND `+notShadowOf("name")+`
ORDER BY m.type, m.name`)
	if err != nil {
		return nil, sr.db.ConnError(ctx, err)
	}
	var out []domain.TableInfo
	for rows.Next() {
		t := domain.TableInfo{Rows: -1}
		if err := rows.Scan(&t.Name, &t.Type); err != nil {
			rows.Close()
			return nil, sr.db.ConnError(ctx, err)
		}
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, sr.db.ConnError(ctx, err)
	}
	if counts {
		for i := range out {
			if out[i].Type != "table" {
				continue
			}
			if out[i].Rows, err = sr.count(ctx, out[i].Name); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (sr *Reader) count(ctx context.Context, table string) (int64, error) {
	var n int64
	err := sr.db.Readers().QueryRowContext(ctx, "SELECT count(*) FROM "+sqlite.QuoteIdent(table)).Scan(&n)
	if err != nil {
		return 0, sr.db.ConnError(ctx, err)
	}
	return n, nil
}

// Describe returns a table's or view's structure, row count and SQL.
func (sr *Reader) Describe(ctx context.Context, table string) (domain.TableDescription, error) {
	if err := sr.db.CheckFile(); err != nil {
		return domain.TableDescription{}, err
	}
	d := domain.TableDescription{Rows: -1}
	err := sr.db.Readers().QueryRowContext(ctx,
		"SELECT name, type, coalesce(sql, '') FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", table).
		Scan(&d.Name, &d.Type, &d.SQL)
	if err == sql.ErrNoRows {
		return d, domain.Errorf(domain.ErrNotFound, "no table or view named %s; use "+domain.ToolListTables, domain.Quote(table))
	}
	if err != nil {
		return d, sr.db.ConnError(ctx, err)
	}
	if err := sr.query(ctx, func(r *sql.Rows) error {
		var c domain.Column
		var dflt sql.NullString
		var notnull int64
		if err := r.Scan(&c.CID, &c.Name, &c.Type, &notnull, &dflt, &c.PK); err != nil {
			return err
		}
		c.NotNull = notnull != 0
		if dflt.Valid {
			c.Default = &dflt.String
		}
		d.Columns = append(d.Columns, c)
		return nil
	}, "SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", d.Name); err != nil {
		return d, err
	}
	if err := sr.query(ctx, func(r *sql.Rows) error {
		var fk domain.ForeignKey
		var to sql.NullString
		if err := r.Scan(&fk.From, &fk.Table, &to); err != nil {
			return err
		}
		fk.To = to.String
		d.ForeignKeys = append(d.ForeignKeys, fk)
		return nil
	}, `SELECT "from", "table", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq`, d.Name); err != nil {
		return d, err
	}
	if err := sr.query(ctx, func(r *sql.Rows) error {
		var ix domain.Index
		var unique int64
		var cols sql.NullString
		if err := r.Scan(&ix.Name, &unique, &ix.Origin, &cols); err != nil {
			return err
		}
		ix.Unique = unique != 0
		if cols.String != "" {
			ix.Columns = strings.Split(cols.String, "\x1f")
		}
		d.Indexes = append(d.Indexes, ix)
		return nil
	}, `SELECT l.name, l."unique", l.origin,
  (SELECT group_concat(coalesce(i.name, '<expr>'), char(31)) FROM
     (SELECT name FROM pragma_index_info(l.name) ORDER BY seqno) i)
FROM pragma_index_list(?) l`, d.Name); err != nil {
		return d, err
	}
	if d.Type == "table" {
		if d.Rows, err = sr.count(ctx, d.Name); err != nil {
			return d, err
		}
	}
	return d, nil
}

// query runs a fixed catalog query on a read connection.
func (sr *Reader) query(ctx context.Context, scan func(*sql.Rows) error, q string, args ...any) error {
	rows, err := sr.db.Readers().QueryContext(ctx, q, args...)
	if err != nil {
		return sr.db.ConnError(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return sr.db.ConnError(ctx, err)
		}
	}
	if err := rows.Err(); err != nil {
		return sr.db.ConnError(ctx, err)
	}
	return nil
}

// Objects returns stored schema SQL in get_schema order, without shadow and
// internal objects.
func (sr *Reader) Objects(ctx context.Context) ([]domain.SchemaObject, error) {
	if err := sr.db.CheckFile(); err != nil {
		return nil, err
	}
	var out []domain.SchemaObject
	err := sr.query(ctx, func(r *sql.Rows) error {
		var o domain.SchemaObject
		if err := r.Scan(&o.Type, &o.Name, &o.TableName, &o.SQL); err != nil {
			return err
		}
		out = append(out, o)
		return nil
	}, `SELECT m.type, m.name, m.tbl_name, m.sql FROM sqlite_schema m
WHERE m.sql IS NOT NULL AND `+notShadowOf("name")+`
  AND (m.type = 'view' OR NOT EXISTS (SELECT 1 FROM pragma_table_list l
      WHERE l.schema = 'main' AND l.type = 'shadow' AND l.name = m.tbl_name))
ORDER BY CASE m.type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 WHEN 'trigger' THEN 3 ELSE 4 END, m.name`)
	return out, err
}

// Object returns the schema entry named name (letter case ignored, as
// SQLite ignores it).
func (sr *Reader) Object(ctx context.Context, name string) (domain.SchemaObject, error) {
	if err := sr.db.CheckFile(); err != nil {
		return domain.SchemaObject{}, err
	}
	var o domain.SchemaObject
	var q sql.NullString
	err := sr.db.Readers().QueryRowContext(ctx,
		"SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name = ? COLLATE NOCASE", name).
		Scan(&o.Type, &o.Name, &o.TableName, &q)
	if err == sql.ErrNoRows {
		return o, domain.Errorf(domain.ErrNotFound, "no object named %s", domain.Quote(name))
	}
	if err != nil {
		return o, sr.db.ConnError(ctx, err)
	}
	o.SQL = q.String
	return o, nil
}
