package memory

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Retractions (docs/decisions.md#retractions) and provenance
// (docs/decisions.md#provenance) live in side tables keyed by event id,
// written in the transaction of the event they describe; the Store makes
// them (adapters/sqlite/memschema.go, sqlite.EnsureSides).

// hiddenSQL is the condition, on memory_events' id, of the events the
// memory tools show: neither retracted nor a retraction.
const hiddenSQL = " AND id NOT IN (SELECT event_id FROM memory_retractions) AND id NOT IN (SELECT retraction_id FROM memory_retractions)"

// recordProvenance stores where e came from (the call's
// [ports.ProvenanceFrom]), in e's transaction; nothing when the call
// says nothing.
func recordProvenance(ctx context.Context, conn *sql.Conn, id int64) error {
	p := ports.ProvenanceFrom(ctx)
	if p.IsZero() {
		return nil
	}
	if err := sqlite.EnsureSides(ctx, conn); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx,
		"INSERT INTO memory_provenance (event_id, transport, client, client_version, http_session, command) VALUES (?, ?, nullif(?, ''), nullif(?, ''), nullif(?, ''), nullif(?, ''))",
		id, p.Transport, p.Client, p.ClientVersion, p.HTTPSession, p.Command)
	return err
}

// Retract appends the retraction of event target and its row of
// memory_retractions in one write transaction.
func (m *Store) Retract(ctx context.Context, target int64, next func(int64, string, domain.Event) (domain.Event, domain.Retraction, error), audit ports.AuditFunc[domain.Retraction]) (domain.Retraction, bool, error) {
	var x domain.Retraction
	var prior bool
	err := m.inWrite(ctx, func(conn *sql.Conn) error {
		var t domain.Event
		err := conn.QueryRowContext(ctx, "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events WHERE id = ?", target).
			Scan(&t.ID, &t.TS, &t.Session, &t.Kind, &t.Content, &t.PrevHash, &t.Hash)
		if err == sql.ErrNoRows {
			return domain.Errorf(domain.ErrNotFound, "there is no event %d; "+domain.ToolSearchMemory+" or "+domain.ToolGetResumeContext+" shows the ids of the events", target)
		}
		if err != nil {
			return err
		}
		if err := sqlite.EnsureSides(ctx, conn); err != nil {
			return err
		}
		err = conn.QueryRowContext(ctx, "SELECT event_id, retraction_id, reason FROM memory_retractions WHERE event_id = ?", target).
			Scan(&x.EventID, &x.RetractionID, &x.Reason)
		switch {
		case err == nil:
			prior = true
			return errRetracted // rolls back: nothing to write
		case err != sql.ErrNoRows:
			return err
		}
		id, h, err := sqlite.Head(ctx, conn)
		if err != nil {
			return err
		}
		var e domain.Event
		if e, x, err = next(id, h, t); err != nil {
			return err
		}
		if err := insertEvent(ctx, conn, e); err != nil {
			return err
		}
		return insertRetraction(ctx, conn, x)
	}, bind(audit, &x))
	if prior && err == errRetracted {
		return x, false, nil
	}
	return x, err == nil, err
}

// errRetracted ends the transaction of a retraction whose target is
// retracted already; Retract does not return it.
var errRetracted = domain.Errorf(domain.ErrConflict, "retracted already")

func insertRetraction(ctx context.Context, conn *sql.Conn, x domain.Retraction) error {
	_, err := conn.ExecContext(ctx, "INSERT INTO memory_retractions (event_id, retraction_id, reason) VALUES (?, ?, ?)", x.EventID, x.RetractionID, x.Reason)
	return err
}

// Provenances calls fn for the provenance of every event at or before
// upTo that has one, in event order (the export command); nothing for a
// file without the table.
func (m *Store) Provenances(ctx context.Context, upTo int64, fn func(id int64, p domain.Provenance) error) error {
	var has bool
	if err := m.db.Readers().QueryRowContext(ctx,
		"SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'memory_provenance')").Scan(&has); err != nil {
		return m.db.ConnError(ctx, err)
	}
	if !has {
		return nil
	}
	rows, err := m.db.Readers().QueryContext(ctx,
		"SELECT event_id, transport, coalesce(client, ''), coalesce(client_version, ''), coalesce(http_session, ''), coalesce(command, '') FROM memory_provenance WHERE event_id <= ? ORDER BY event_id", upTo)
	if err != nil {
		return m.db.ConnError(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p domain.Provenance
		if err := rows.Scan(&id, &p.Transport, &p.Client, &p.ClientVersion, &p.HTTPSession, &p.Command); err != nil {
			return m.db.ConnError(ctx, err)
		}
		if err := fn(id, p); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return m.db.ConnError(ctx, err)
	}
	return nil
}

// Provenance stores event id's provenance as the export gives it.
func (r *Rows) Provenance(id int64, p domain.Provenance) error {
	return recordProvenance(ports.WithProvenance(r.ctx, p), r.conn, id)
}
