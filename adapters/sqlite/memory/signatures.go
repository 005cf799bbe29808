package memory

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The chain's head signatures (docs/decisions.md#keyed-chain) are rows of
// memory_head_signatures, which the Store makes at a start with a chain
// key (adapters/sqlite/memschema.go) and an import that carries them.

// signHead signs the chain's head as it stands in conn's write
// transaction, so the signature commits with the append it covers
// (docs/decisions.md#keyed-chain).
func signHead(ctx context.Context, conn *sql.Conn, key *domain.ChainKey) error {
	id, hash, err := sqlite.Head(ctx, conn)
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
func (m *Store) HeadSignature(ctx context.Context, upTo int64) (*domain.HeadSignature, string, bool, error) {
	if err := m.db.CheckFile(); err != nil {
		return nil, "", false, err
	}
	conn, err := m.db.Readers().Conn(ctx)
	if err != nil {
		return nil, "", false, m.db.ConnError(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, "", false, m.db.ConnError(ctx, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	var has bool
	if err := conn.QueryRowContext(ctx,
		"SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'memory_head_signatures')").Scan(&has); err != nil {
		return nil, "", false, m.db.ConnError(ctx, err)
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
		return nil, "", false, m.db.ConnError(ctx, err)
	}
	var hash string
	err = conn.QueryRowContext(ctx, "SELECT hash FROM memory_events WHERE id = ?", s.EventID).Scan(&hash)
	if err == sql.ErrNoRows {
		return &s, "", false, nil
	}
	if err != nil {
		return nil, "", false, m.db.ConnError(ctx, err)
	}
	return &s, hash, true, nil
}
