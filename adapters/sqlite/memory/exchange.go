package memory

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Signatures calls fn for every head signature of an event at or before
// upTo, in event order (the export command).
func (m *Store) Signatures(ctx context.Context, upTo int64, fn func(domain.HeadSignature) error) error {
	var has bool
	if err := m.db.Readers().QueryRowContext(ctx,
		"SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'memory_head_signatures')").Scan(&has); err != nil {
		return m.db.ConnError(ctx, err)
	}
	if !has {
		return nil
	}
	rows, err := m.db.Readers().QueryContext(ctx,
		"SELECT event_id, head_hash, key_id, mac FROM memory_head_signatures WHERE event_id <= ? ORDER BY event_id", upTo)
	if err != nil {
		return m.db.ConnError(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s domain.HeadSignature
		if err := rows.Scan(&s.EventID, &s.HeadHash, &s.KeyID, &s.MAC); err != nil {
			return m.db.ConnError(ctx, err)
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return m.db.ConnError(ctx, err)
	}
	return nil
}

// Rows stores the rows of an import, as they are, into the import's
// transaction ([Store.Import]).
type Rows struct {
	ctx    context.Context
	conn   *sql.Conn
	signed bool // the signature table is made
}

// Event stores e with its id and hashes. A retraction event
// ([domain.ParseRetraction]) of an earlier event gets its row of
// memory_retractions again: the export carries retractions as the events
// they are.
func (r *Rows) Event(e domain.Event) error {
	if err := insertEvent(r.ctx, r.conn, e); err != nil {
		return err
	}
	x, ok := domain.ParseRetraction(e)
	if !ok || x.EventID >= e.ID {
		return nil
	}
	if err := sqlite.EnsureSides(r.ctx, r.conn); err != nil {
		return err
	}
	_, err := r.conn.ExecContext(r.ctx, "INSERT OR IGNORE INTO memory_retractions (event_id, retraction_id, reason) VALUES (?, ?, ?)", x.EventID, x.RetractionID, x.Reason)
	return err
}

// Checkpoint stores c with its id.
func (r *Rows) Checkpoint(c domain.Checkpoint) error {
	_, err := r.conn.ExecContext(r.ctx,
		"INSERT INTO memory_checkpoints (id, ts, session, summary, last_event_id, head_hash) VALUES (?, ?, ?, ?, ?, ?)",
		c.ID, c.TS, c.Session, c.Summary, c.LastEventID, c.HeadHash)
	return err
}

// Signature stores s; the first one makes the signature table.
func (r *Rows) Signature(s domain.HeadSignature) error {
	if !r.signed {
		if err := sqlite.EnsureSignatures(r.ctx, r.conn); err != nil {
			return err
		}
		r.signed = true
	}
	_, err := r.conn.ExecContext(r.ctx,
		"INSERT INTO memory_head_signatures (event_id, head_hash, key_id, mac) VALUES (?, ?, ?, ?)",
		s.EventID, s.HeadHash, s.KeyID, s.MAC)
	return err
}

// Import fills the memory tables of a database that has no memory yet in
// one write transaction: fill stores the rows, and the transaction
// commits only when it returns nil (the caller verifies before it does).
//
// Errors: [domain.ErrConflict] when the database already holds events or
// checkpoints; fill's error as it is.
func (m *Store) Import(ctx context.Context, fill func(*Rows) error) error {
	var filled error // fill's own error, returned as it is
	err := m.inWriteOnce(ctx, func(conn *sql.Conn) error {
		var n int
		if err := conn.QueryRowContext(ctx,
			"SELECT (SELECT count(*) FROM memory_events) + (SELECT count(*) FROM memory_checkpoints)").Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return domain.Errorf(domain.ErrConflict, "the database already holds memory; import only into a new file")
		}
		filled = fill(&Rows{ctx: ctx, conn: conn})
		return filled
	}, nil)
	if filled != nil {
		return filled
	}
	return err
}
