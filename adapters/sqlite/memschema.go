package sqlite

import (
	"context"
	"database/sql"
)

// The memory's own tables beside the reference's (bootstrapSQL): the side
// tables of retractions and provenance, and the head signatures. Package
// memory writes their rows; the Store makes them, at bootstrap where the
// file or the options call for them (bootstrap.go), and through the seam
// (EnsureSides, EnsureSignatures) in the write that records a first row;
// the server-object check knows their definitions (serverobjects.go).

// memSidesSQL creates the memory's side tables, each keyed by event id
// and written in the transaction of the event it describes: the
// retractions (docs/decisions.md#retractions) and each event's provenance
// (docs/decisions.md#provenance). They are this server's own, kept apart
// from bootstrapSQL (the reference's script), and append-only; the chain
// hashes neither, so a file the reference made verifies unchanged. Like
// the signature table they are made where they are needed, by the first
// write that records a row (ensureSides), so a file only opened keeps the
// reference's schema.
const memSidesSQL = `
CREATE TABLE IF NOT EXISTS memory_retractions (
    event_id      INTEGER PRIMARY KEY,
    retraction_id INTEGER NOT NULL UNIQUE,
    reason        TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS memory_retractions_no_update BEFORE UPDATE ON memory_retractions
    BEGIN SELECT RAISE(ABORT, 'memory_retractions is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_retractions_no_delete BEFORE DELETE ON memory_retractions
    BEGIN SELECT RAISE(ABORT, 'memory_retractions is append-only'); END;

CREATE TABLE IF NOT EXISTS memory_provenance (
    event_id       INTEGER PRIMARY KEY,
    transport      TEXT NOT NULL,
    client         TEXT,
    client_version TEXT,
    http_session   TEXT,
    command        TEXT
);
CREATE TRIGGER IF NOT EXISTS memory_provenance_no_update BEFORE UPDATE ON memory_provenance
    BEGIN SELECT RAISE(ABORT, 'memory_provenance is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_provenance_no_delete BEFORE DELETE ON memory_provenance
    BEGIN SELECT RAISE(ABORT, 'memory_provenance is append-only'); END;
`

// bootstrapSides runs memSidesSQL, in bootstrap's transaction, when the
// file has either table already, so a trigger --repair-server-objects
// dropped is made again.
func bootstrapSides(ctx context.Context, conn *sql.Conn) error {
	var has bool
	if err := conn.QueryRowContext(ctx,
		"SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name IN ('memory_retractions', 'memory_provenance'))").Scan(&has); err != nil {
		return err
	}
	if !has {
		return nil
	}
	_, err := conn.ExecContext(ctx, memSidesSQL)
	return err
}

// ensureSides makes the side tables in conn's write transaction when the
// file lacks them (one lookup in sqlite_schema otherwise).
func ensureSides(ctx context.Context, conn *sql.Conn) error {
	var n int
	if err := conn.QueryRowContext(ctx,
		"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('memory_retractions', 'memory_provenance')").Scan(&n); err != nil {
		return err
	}
	if n == 2 {
		return nil
	}
	_, err := conn.ExecContext(ctx, memSidesSQL)
	return err
}

// hasRetractions reports whether the file has the retractions table (a
// file no writable server of this version opened has not).
func hasRetractions(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	var has bool
	err := q.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'memory_retractions')").Scan(&has)
	return has, err
}

// signaturesSQL creates the table of the chain's head signatures and its
// append-only triggers (docs/decisions.md#keyed-chain). It is this
// server's own, not the reference's, so it is made only where it is
// needed: at a start with a chain key, or by an import that carries
// signatures. A file that never met a key keeps the reference's schema.
const signaturesSQL = `
CREATE TABLE IF NOT EXISTS memory_head_signatures (
    event_id  INTEGER PRIMARY KEY,
    head_hash TEXT NOT NULL,
    key_id    TEXT NOT NULL,
    mac       TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS memory_head_signatures_no_update BEFORE UPDATE ON memory_head_signatures
    BEGIN SELECT RAISE(ABORT, 'memory_head_signatures is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_head_signatures_no_delete BEFORE DELETE ON memory_head_signatures
    BEGIN SELECT RAISE(ABORT, 'memory_head_signatures is append-only'); END;
`

// bootstrapSignatures runs signaturesSQL, in bootstrap's transaction,
// when the server has a chain key or the file already has the table (so
// a trigger --repair-server-objects dropped is made again).
func (s *Store) bootstrapSignatures(ctx context.Context, conn *sql.Conn) error {
	need := s.opts.ChainKey != nil
	if !need {
		if err := conn.QueryRowContext(ctx,
			"SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'memory_head_signatures')").Scan(&need); err != nil {
			return err
		}
	}
	if !need {
		return nil
	}
	_, err := conn.ExecContext(ctx, signaturesSQL)
	return err
}
