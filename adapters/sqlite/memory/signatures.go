package sqlite

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

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

// signHead signs the chain's head as it stands in conn's write
// transaction, so the signature commits with the append it covers
// (docs/decisions.md#keyed-chain).
func signHead(ctx context.Context, conn *sql.Conn, key *domain.ChainKey) error {
	id, hash, err := head(ctx, conn)
	if err != nil || id == 0 {
		return err
	}
	s := key.Sign(id, hash)
	_, err = conn.ExecContext(ctx,
		"INSERT INTO memory_head_signatures (event_id, head_hash, key_id, mac) VALUES (?, ?, ?, ?)",
		s.EventID, s.HeadHash, s.KeyID, s.MAC)
	return err
}

// HeadSignature returns the newest head signature of an event at or
// before upTo (nil when there is none, or no signature table: a file the
// reference made) and the hash that event has now (found false when it
// is gone), in one read transaction.
func (m *MemoryStore) HeadSignature(ctx context.Context, upTo int64) (*domain.HeadSignature, string, bool, error) {
	if err := m.db.checkImmutable(); err != nil {
		return nil, "", false, err
	}
	conn, err := m.db.readers.Conn(ctx)
	if err != nil {
		return nil, "", false, m.db.connError(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, "", false, m.db.connError(ctx, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	var has bool
	if err := conn.QueryRowContext(ctx,
		"SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'memory_head_signatures')").Scan(&has); err != nil {
		return nil, "", false, m.db.connError(ctx, err)
	}
	if !has {
		return nil, "", false, nil
	}
	var s domain.HeadSignature
	err = conn.QueryRowContext(ctx,
		"SELECT event_id, head_hash, key_id, mac FROM memory_head_signatures WHERE event_id <= ? ORDER BY event_id DESC LIMIT 1", upTo).
		Scan(&s.EventID, &s.HeadHash, &s.KeyID, &s.MAC)
	if err == sql.ErrNoRows {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, m.db.connError(ctx, err)
	}
	var hash string
	err = conn.QueryRowContext(ctx, "SELECT hash FROM memory_events WHERE id = ?", s.EventID).Scan(&hash)
	if err == sql.ErrNoRows {
		return &s, "", false, nil
	}
	if err != nil {
		return nil, "", false, m.db.connError(ctx, err)
	}
	return &s, hash, true, nil
}
