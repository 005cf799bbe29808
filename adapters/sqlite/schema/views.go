package schema

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// ViewWriter runs create_view's DDL. It bypasses the statement policy on
// purpose: the view's SQL has been checked under the read tier before
// (app's CreateView compiles it with the StatementRunner), and the DDL
// itself is built here from a [domain.View], never taken from the agent.
type ViewWriter struct {
	db *sqlite.Store
}

var (
	_ ports.ViewWriter  = (*ViewWriter)(nil)
	_ ports.AuditSealer = (*ViewWriter)(nil)
)

// NewViewWriter returns the view writer of db.
func NewViewWriter(db *sqlite.Store) *ViewWriter {
	return &ViewWriter{db: db}
}

// Seals reports whether sink is the audit sink of the same database: the
// audit row of a view then commits in the same transaction.
func (w *ViewWriter) Seals(sink ports.AuditSink) bool { return w.db.Seals(sink) }

// ReplaceView runs v's CREATE VIEW (viewDDL) on an internal connection in one
// transaction, dropping the old view first when replace is set, and stores
// audit's row in the same transaction. It changes only the view: a view
// with triggers is not replaced (DROP VIEW would drop them), and a
// definition that does not work in the new schema (one that reads from the
// view itself, for one) or that breaks another view is rolled back, so the
// old view keeps working.
func (w *ViewWriter) ReplaceView(ctx context.Context, v domain.View, replace bool, audit ports.AuditFunc[string]) error {
	name, ddl := v.Name, viewDDL(v)
	return w.db.InWrite(ctx, func(conn *sql.Conn) error {
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
			if _, err := conn.ExecContext(ctx, "DROP VIEW IF EXISTS "+sqlite.QuoteIdent(name)); err != nil {
				return err
			}
		}
		if _, err := conn.ExecContext(ctx, ddl); err != nil {
			return err
		}
		// SQLite checks a view's body only when it is used: use it now.
		if _, err := conn.ExecContext(ctx, "SELECT * FROM "+sqlite.QuoteIdent(name)+" LIMIT 0"); err != nil {
			return domain.Errorf(domain.ErrInvalidArgument, "%s", domain.BrokenViewMessage(name, w.db.Scrub(err.Error()), replace))
		}
		// Other views that read this one must keep working too.
		for _, v := range working {
			if _, err := conn.ExecContext(ctx, "SELECT * FROM "+sqlite.QuoteIdent(v)+" LIMIT 0"); err != nil {
				return domain.Errorf(domain.ErrConflict, "%s", domain.DependentViewMessage(name, v, w.db.Scrub(err.Error())))
			}
		}
		if audit != nil {
			if err := sqlite.InsertAudit(ctx, conn, audit(name)); err != nil {
				return err
			}
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
		return err
	})
}

// workingViews lists the views other than name that SQLite can use now.
func workingViews(ctx context.Context, conn *sql.Conn, name string) ([]string, error) {
	var views []string
	err := sqlite.QueryOn(ctx, conn, func(rows *sql.Rows) error {
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
		if _, err := conn.ExecContext(ctx, "SELECT * FROM "+sqlite.QuoteIdent(v)+" LIMIT 0"); err == nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// viewTriggers lists the triggers on view name.
func viewTriggers(ctx context.Context, conn *sql.Conn, name string) ([]string, error) {
	var out []string
	err := sqlite.QueryOn(ctx, conn, func(rows *sql.Rows) error {
		var t string
		if err := rows.Scan(&t); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	}, "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE ORDER BY name", name)
	return out, err
}
