package undo

import (
	"context"
	"database/sql"
	"net/url"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// undoSchema is the name the snapshot copy is attached under.
const undoSchema = "undo_snapshot"

// Restore runs the plan in one write transaction on a connection of its
// own: the snapshot copy attached read-only, foreign keys off (so no
// cascade fires while rows are rewritten; the rows come back exactly as
// they were, so their references hold as they did), triggers out of the
// way (domain.UndoPlan.Steps). Inside the transaction it first checks
// that the live objects the plan touches are the ones it was made from,
// and after the steps that every restored object now equals the
// snapshot's, definition and rows; only then are the event and the audit
// row added and the transaction committed. Readers (a running server's
// included) see the database before or after, never between: WAL.
func (u *Undoer) Restore(ctx context.Context, plan domain.UndoPlan, next func(int64, string) (domain.Event, error), audit ports.AuditFunc[domain.Event]) (domain.Event, error) {
	var e domain.Event
	if u.src == "" {
		return e, domain.Errorf(domain.ErrInvalidArgument, "undo: Restore needs Inspect first")
	}
	// A connection of its own: the attached snapshot and foreign_keys=OFF
	// must not go back to the store's pool.
	setup := func(conn *sql.Conn) error {
		for _, q := range []string{"PRAGMA foreign_keys = OFF", "PRAGMA synchronous = FULL"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		src := (&url.URL{Scheme: "file", Path: u.src, RawQuery: "mode=ro&immutable=1"}).String()
		if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS "+undoSchema, src); err != nil {
			return domain.Errorf(domain.ErrSnapshot, "cannot open the copy of the snapshot: %s", err.Error())
		}
		return nil
	}
	err := u.db.InWriteApart(ctx, setup, func(conn *sql.Conn) error {
		err := conn.Raw(func(dc any) error {
			h, err := engine.Open(dc)
			if err != nil {
				return err
			}
			stop := sqlite.ArmDeadline(ctx, h)
			defer stop()
			return u.restoreOn(h, plan)
		})
		if err == nil {
			var id int64
			var hash string
			if id, hash, err = sqlite.Head(ctx, conn); err == nil {
				if e, err = next(id, hash); err == nil {
					_, err = conn.ExecContext(ctx, "INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
						e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash)
				}
			}
		}
		if err == nil && audit != nil {
			err = sqlite.InsertAudit(ctx, conn, audit(e))
		}
		if err == nil {
			_, err = conn.ExecContext(ctx, "COMMIT")
		}
		return err
	})
	if err != nil {
		return domain.Event{}, err
	}
	return e, nil
}

// restoreOn checks, runs the steps and checks again, inside the
// transaction.
func (u *Undoer) restoreOn(h engine.Handle, plan domain.UndoPlan) error {
	// Only the tables the plan rewrites are digested under the write
	// lock: a running server's writes wait for it.
	now, err := readUndoObjects(h, "main", plan.Restores)
	if err != nil {
		return err
	}
	if changed := plan.ChangedSince(now); len(changed) > 0 {
		return domain.Errorf(domain.ErrConflict, "nothing was restored: %s changed while the undo was being decided; run undo again to see the new plan",
			domain.QuoteList(changed))
	}
	for _, st := range plan.Steps() {
		if err := u.runStep(h, st); err != nil {
			return domain.Errorf(domain.ErrSQLite, "nothing was restored: %s %s %s failed: %s", stepVerb(st.Op), st.Object.Type, domain.Quote(st.Object.Name), u.db.Scrub(err.Error()))
		}
	}
	after, err := readUndoObjects(h, "main", plan.Restores)
	if err != nil {
		return err
	}
	if wrong := plan.NotRestored(now, after); len(wrong) > 0 {
		return domain.Errorf(domain.ErrInternal, "nothing was restored: after the restore %s still differed from the snapshot, so it was rolled back", domain.QuoteList(wrong))
	}
	return nil
}

func stepVerb(op domain.UndoOp) string {
	switch op {
	case domain.UndoDrop:
		return "dropping"
	case domain.UndoCreate:
		return "creating"
	}
	return "copying the rows of"
}

func (u *Undoer) runStep(h engine.Handle, st domain.UndoStep) error {
	o := st.Object
	switch st.Op {
	case domain.UndoDrop:
		return h.Exec("DROP " + strings.ToUpper(o.Type) + " main." + sqlite.QuoteIdent(o.Name))
	case domain.UndoCreate:
		return createFrom(h, o.SQL)
	}
	tables := []string{o.Name}
	if o.Virtual {
		shapes, err := tableShapes(h, undoSchema)
		if err != nil {
			return err
		}
		tables = shadowsOf(shapes, o.Name)
	}
	for _, t := range tables {
		if err := copyRows(h, t, st.Refill || o.Virtual); err != nil {
			return err
		}
	}
	// The AUTOINCREMENT counter goes back too. An AUTOINCREMENT table
	// makes sqlite_sequence when it is created, so the snapshot's counter
	// always has a table to go to.
	if ok, err := hasTable(h, "main", "sqlite_sequence"); err != nil || !ok {
		return err
	}
	name := sqlText(o.Name)
	snap := "SELECT rowid AS r, seq FROM " + undoSchema + ".sqlite_sequence WHERE name = " + name
	if ok, err := hasTable(h, undoSchema, "sqlite_sequence"); err != nil {
		return err
	} else if !ok {
		snap = "SELECT NULL AS r, NULL AS seq WHERE 0"
	}
	if err := h.Exec("DELETE FROM main.sqlite_sequence WHERE name = " + name); err != nil {
		return err
	}
	// The row comes back under its old rowid when that is free.
	return h.Exec("INSERT INTO main.sqlite_sequence (rowid, name, seq) SELECT CASE WHEN EXISTS (SELECT 1 FROM main.sqlite_sequence WHERE rowid = s.r) " +
		"THEN NULL ELSE s.r END, " + name + ", s.seq FROM (" + snap + ") AS s")
}

// createFrom runs a stored definition: one CREATE statement, nothing
// after it (sqlite_schema holds exactly that unless the file was edited
// with writable_schema).
func createFrom(h engine.Handle, def string) error {
	st, tail, err := h.Prepare(def)
	if err != nil {
		return err
	}
	defer st.Finalize()
	if !strings.HasPrefix(strings.ToUpper(def), "CREATE ") || strings.TrimSpace(tail) != "" {
		return domain.Errorf(domain.ErrInvalidArgument, "its stored definition is not one CREATE statement")
	}
	_, err = st.Step()
	return err
}

// copyRows copies table's rows, rowids included, from the snapshot; with
// empty the live rows are deleted first.
func copyRows(h engine.Handle, table string, empty bool) error {
	to, from := "main."+sqlite.QuoteIdent(table), undoSchema+"."+sqlite.QuoteIdent(table)
	if empty {
		if err := h.Exec("DELETE FROM " + to); err != nil {
			return err
		}
	}
	shapes, err := tableShapes(h, undoSchema)
	if err != nil {
		return err
	}
	all, writable, err := tableColumns(h, undoSchema, table)
	if err != nil {
		return err
	}
	cols := make([]string, len(writable))
	for i, c := range writable {
		cols[i] = sqlite.QuoteIdent(c)
	}
	if r := rowidName(all); r != "" && !shapes[strings.ToLower(table)].withoutRowid {
		cols = append([]string{r}, cols...)
	}
	list := strings.Join(cols, ", ")
	return h.Exec("INSERT INTO " + to + " (" + list + ") SELECT " + list + " FROM " + from)
}

// hasTable reports whether schema has a table called name.
func hasTable(h engine.Handle, schema, name string) (bool, error) {
	found := false
	err := queryRows(h, "SELECT 1 FROM "+sqlite.QuoteIdent(schema)+".sqlite_schema WHERE type = 'table' AND name = "+sqlText(name), func(engine.Stmt) error {
		found = true
		return nil
	})
	return found, err
}
