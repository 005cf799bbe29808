package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

var (
	_ ports.SchemaReader    = (*Store)(nil)
	_ ports.ViewWriter      = (*Store)(nil)
	_ ports.CandidateSource = (*Store)(nil)
)

// notShadow keeps schema rows that are not real shadow tables, as SQLite
// itself classifies them (docs/decisions.md#fixes-over-the-reference, item 2), and not internal objects (item 3: an exact,
// case-insensitive "sqlite_" prefix, never a LIKE pattern).
const notShadow = `NOT EXISTS (SELECT 1 FROM pragma_table_list l
      WHERE l.schema = 'main' AND l.type = 'shadow' AND l.name = m.%s)
  AND lower(substr(m.name, 1, 7)) <> 'sqlite_'`

func notShadowOf(col string) string { return strings.Replace(notShadow, "%s", col, 1) }

// Tables lists tables and views in list_tables order.
func (s *Store) Tables(ctx context.Context, counts bool) ([]domain.TableInfo, error) {
	if err := s.checkImmutable(); err != nil {
		return nil, err
	}
	rows, err := s.readers.QueryContext(ctx, `SELECT m.name, m.type FROM sqlite_schema m
WHERE m.type IN ('table', 'view') AND `+notShadowOf("name")+`
ORDER BY m.type, m.name`)
	if err != nil {
		return nil, s.connError(ctx, err)
	}
	var out []domain.TableInfo
	for rows.Next() {
		t := domain.TableInfo{Rows: -1}
		if err := rows.Scan(&t.Name, &t.Type); err != nil {
			rows.Close()
			return nil, s.connError(ctx, err)
		}
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.connError(ctx, err)
	}
	if counts {
		for i := range out {
			if out[i].Type != "table" {
				continue
			}
			if out[i].Rows, err = s.count(ctx, out[i].Name); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (s *Store) count(ctx context.Context, table string) (int64, error) {
	var n int64
	err := s.readers.QueryRowContext(ctx, "SELECT count(*) FROM "+domain.QuoteIdent(table)).Scan(&n)
	if err != nil {
		return 0, s.connError(ctx, err)
	}
	return n, nil
}

// Describe returns a table's or view's structure, row count and SQL.
func (s *Store) Describe(ctx context.Context, table string) (domain.TableDescription, error) {
	if err := s.checkImmutable(); err != nil {
		return domain.TableDescription{}, err
	}
	d := domain.TableDescription{Rows: -1}
	err := s.readers.QueryRowContext(ctx,
		"SELECT name, type, coalesce(sql, '') FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", table).
		Scan(&d.Name, &d.Type, &d.SQL)
	if err == sql.ErrNoRows {
		return d, domain.Errorf(domain.ErrNotFound, "no table or view named %s; use list_tables", domain.Quote(table))
	}
	if err != nil {
		return d, s.connError(ctx, err)
	}
	if err := s.query(ctx, func(r *sql.Rows) error {
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
	if err := s.query(ctx, func(r *sql.Rows) error {
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
	if err := s.query(ctx, func(r *sql.Rows) error {
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
		if d.Rows, err = s.count(ctx, d.Name); err != nil {
			return d, err
		}
	}
	return d, nil
}

// query runs a fixed catalog query on a read connection.
func (s *Store) query(ctx context.Context, scan func(*sql.Rows) error, q string, args ...any) error {
	rows, err := s.readers.QueryContext(ctx, q, args...)
	if err != nil {
		return s.connError(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return s.connError(ctx, err)
		}
	}
	if err := rows.Err(); err != nil {
		return s.connError(ctx, err)
	}
	return nil
}

// Objects returns stored schema SQL in get_schema order, without shadow and
// internal objects.
func (s *Store) Objects(ctx context.Context) ([]domain.SchemaObject, error) {
	if err := s.checkImmutable(); err != nil {
		return nil, err
	}
	var out []domain.SchemaObject
	err := s.query(ctx, func(r *sql.Rows) error {
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
func (s *Store) Object(ctx context.Context, name string) (domain.SchemaObject, error) {
	if err := s.checkImmutable(); err != nil {
		return domain.SchemaObject{}, err
	}
	var o domain.SchemaObject
	var q sql.NullString
	err := s.readers.QueryRowContext(ctx,
		"SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name = ? COLLATE NOCASE", name).
		Scan(&o.Type, &o.Name, &o.TableName, &q)
	if err == sql.ErrNoRows {
		return o, domain.Errorf(domain.ErrNotFound, "no object named %s", domain.Quote(name))
	}
	if err != nil {
		return o, s.connError(ctx, err)
	}
	o.SQL = q.String
	return o, nil
}

// ReplaceView runs v's CREATE VIEW (viewDDL) on an internal connection in one
// transaction, dropping the old view first when replace is set, and stores
// audit's row in the same transaction. It changes only the view: a view
// with triggers is not replaced (DROP VIEW would drop them), and a
// definition that does not work in the new schema (one that reads from the
// view itself, for one) or that breaks another view is rolled back, so the
// old view keeps working.
func (s *Store) ReplaceView(ctx context.Context, v domain.View, replace bool, audit ports.AuditFunc[string]) error {
	name, ddl := v.Name, viewDDL(v)
	budget := time.Now().Add(busyTimeout)
	release, err := s.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer release()
	conn, err := s.internal.Conn(ctx)
	if err != nil {
		return s.connError(ctx, err)
	}
	defer conn.Close()
	if err := setBusy(conn, foreignWait(ctx, budget)); err != nil {
		return s.connError(ctx, err)
	}
	defer func() { _ = setBusy(conn, busyTimeout) }() // back to the pool default
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return s.lockError(ctx, err)
	}
	run := func() error {
		working, err := workingViews(ctx, conn, name)
		if err != nil {
			return err
		}
		if replace {
			triggers, err := viewTriggers(ctx, conn, name)
			if err != nil {
				return err
			}
			if len(triggers) > 0 {
				return domain.Errorf(domain.ErrConflict, "%s", domain.ViewTriggersMessage(name, triggers))
			}
			if _, err := conn.ExecContext(ctx, "DROP VIEW IF EXISTS "+domain.QuoteIdent(name)); err != nil {
				return err
			}
		}
		if _, err := conn.ExecContext(ctx, ddl); err != nil {
			return err
		}
		// SQLite checks a view's body only when it is used: use it now.
		if _, err := conn.ExecContext(ctx, "SELECT * FROM "+domain.QuoteIdent(name)+" LIMIT 0"); err != nil {
			return domain.Errorf(domain.ErrInvalidArgument, "%s", domain.BrokenViewMessage(name, s.scrub(err.Error()), replace))
		}
		// Other views that read this one must keep working too.
		for _, v := range working {
			if _, err := conn.ExecContext(ctx, "SELECT * FROM "+domain.QuoteIdent(v)+" LIMIT 0"); err != nil {
				return domain.Errorf(domain.ErrConflict, "%s", domain.DependentViewMessage(name, v, s.scrub(err.Error())))
			}
		}
		if audit != nil {
			if _, err := conn.ExecContext(ctx, auditInsert, auditArgs(audit(name))...); err != nil {
				return err
			}
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
		return err
	}
	if err := run(); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		var de *domain.Error
		if errors.As(err, &de) {
			return err
		}
		return s.connError(ctx, err)
	}
	return nil
}

// workingViews lists the views other than name that SQLite can use now.
func workingViews(ctx context.Context, conn *sql.Conn, name string) ([]string, error) {
	var views []string
	err := queryOn(ctx, conn, func(rows *sql.Rows) error {
		var v string
		if err := rows.Scan(&v); err != nil {
			return err
		}
		views = append(views, v)
		return nil
	}, "SELECT name FROM sqlite_schema WHERE type = 'view' AND name <> ? COLLATE NOCASE ORDER BY name", name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range views {
		if _, err := conn.ExecContext(ctx, "SELECT * FROM "+domain.QuoteIdent(v)+" LIMIT 0"); err == nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// viewTriggers lists the triggers on view name.
func viewTriggers(ctx context.Context, conn *sql.Conn, name string) ([]string, error) {
	var out []string
	err := queryOn(ctx, conn, func(rows *sql.Rows) error {
		var t string
		if err := rows.Scan(&t); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	}, "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE ORDER BY name", name)
	return out, err
}
