package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// What the adapter's sub-packages (schema, recall, approval, undo,
// memory) build on: the Store's two pools, its write turn, and the
// wording of SQLite's errors. Everything else about connections stays in this package
// (docs/decisions.md#the-sqlite-adapters-packages).

// BusyTimeout is how long a connection waits for another program's write
// lock before SQLite reports "database is locked".
const BusyTimeout = busyTimeout

// Name returns the database's file name, which messages show instead of
// its path.
func (s *Store) Name() string { return s.name }

// QueryTimeout returns [Options.QueryTimeout].
func (s *Store) QueryTimeout() time.Duration { return s.opts.QueryTimeout }

// Internal returns the server's own pool: no policy, no authorizer. Only
// the server's own statements run on it, never the agent's SQL.
func (s *Store) Internal() *sql.DB { return s.internal }

// Readers returns the catalog's pool (query_only). Call CheckFile first.
func (s *Store) Readers() *sql.DB { return s.readers }

// CheckFile refuses to read on (domain.ErrUnavailable) when a read-only
// session's file is no longer the one it opened, or changed under
// immutable=1; it is nil in read-write mode.
func (s *Store) CheckFile() error { return s.checkImmutable() }

// ConnError words a failure to get or use a connection as a domain error
// (cancelled, timed out, busy, out of memory, damaged file, or SQLite's
// message with the path scrubbed).
func (s *Store) ConnError(ctx context.Context, err error) error { return s.connError(ctx, err) }

// Scrub replaces the database's absolute path in msg with its name.
func (s *Store) Scrub(msg string) string { return s.scrub(msg) }

// Seals reports whether sink is the audit sink of this database, so that
// an audit row can commit in the writer's own transaction.
func (s *Store) Seals(sink ports.AuditSink) bool { return s.seals(sink) }

// InWrite runs fn inside BEGIN IMMEDIATE on an internal connection, holding
// the write turn: this process's writes queue for it, and another
// program's lock is waited for within one busy timeout of the call's
// start. fn ends the transaction itself (COMMIT); when fn fails the
// transaction is rolled back, and an error that is not a domain error is
// worded by ConnError.
func (s *Store) InWrite(ctx context.Context, fn func(*sql.Conn) error) error {
	return s.pooledWrite(ctx, func(conn *sql.Conn, budget time.Time) error {
		return s.writeOn(ctx, conn, budget, fn)
	})
}

// pooledWrite takes the write turn and a pooled internal connection, then
// runs fn on it with the budget for another program's lock (one busy
// timeout from now): the start InWrite and InDurableWrite share.
func (s *Store) pooledWrite(ctx context.Context, fn func(conn *sql.Conn, budget time.Time) error) error {
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
	return fn(conn, budget)
}

// InWriteApart is InWrite on an internal connection of its own, closed after
// the call, never returned to a pool: setup runs on it first, outside the
// transaction, for settings that must not reach a pooled connection (an
// ATTACH, foreign_keys OFF).
func (s *Store) InWriteApart(ctx context.Context, setup, fn func(*sql.Conn) error) error {
	release, err := s.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer release()
	db, err := s.open(false, true)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return s.connError(ctx, err)
	}
	defer conn.Close()
	if err := setup(conn); err != nil {
		return s.domainOr(ctx, err)
	}
	return s.writeOn(ctx, conn, time.Now().Add(busyTimeout), fn)
}

// writeOn runs fn in BEGIN IMMEDIATE on conn, waiting for another
// program's lock until budget; see InWrite.
func (s *Store) writeOn(ctx context.Context, conn *sql.Conn, budget time.Time, fn func(*sql.Conn) error) error {
	if err := setBusy(conn, foreignWait(ctx, budget)); err != nil {
		return s.connError(ctx, err)
	}
	defer func() { _ = setBusy(conn, busyTimeout) }() // back to the pool default
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return s.lockError(ctx, err)
	}
	if err := fn(conn); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return s.domainOr(ctx, err)
	}
	return nil
}

// InDurableWrite is InWrite for the memory's events and checkpoints: the
// commit is fsynced (synchronous=FULL; the pooled connection goes back to
// NORMAL) and counted in the run of this process's own commits
// (verified.go). fn runs inside BEGIN IMMEDIATE, and InDurableWrite
// commits when fn returns nil; when fn fails the transaction is rolled
// back, and an error that is not a *domain.Error is worded by ConnError.
func (s *Store) InDurableWrite(ctx context.Context, fn func(*sql.Conn) error) error {
	return s.pooledWrite(ctx, func(conn *sql.Conn, budget time.Time) error {
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
			return s.connError(ctx, err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = NORMAL")
		own, ownOK := s.ownBefore()
		err := s.writeOn(ctx, conn, budget, func(conn *sql.Conn) error {
			if err := fn(conn); err != nil {
				return err
			}
			_, err := conn.ExecContext(ctx, "COMMIT")
			return err
		})
		if err == nil {
			s.ownAfter(own, ownOK)
		}
		return err
	})
}

// RetryNoMem runs fn, the server's own work, again while it fails for
// SQLite's heap limit, a bounded number of times (heap.go).
func RetryNoMem(ctx context.Context, fn func() error) error { return retryNoMem(ctx, fn) }

// ChainKey returns [Options.ChainKey]: when set, every event and
// checkpoint signs the chain's head in its own transaction.
func (s *Store) ChainKey() *domain.ChainKey { return s.opts.ChainKey }

// OwnMark starts a new run of this process's own commits (verified.go)
// and returns its mark; ok is false when the commit counter cannot be
// read (a read-only or immutable file without a shared wal-index).
func (s *Store) OwnMark() (ports.MemoryMark, bool) {
	if s.opts.ReadOnly && s.immutable {
		return "", false
	}
	return s.restart()
}

// OwnSince reports whether only this process's own memory and audit
// commits led from mark to the file as it is now.
func (s *Store) OwnSince(mark ports.MemoryMark) bool { return s.unchanged(mark) }

// EngineError words an error of a statement the server stepped through
// SQLite's C API (package engine) on its own connection, as a domain
// error.
func (s *Store) EngineError(ctx context.Context, err error) error { return s.translate(ctx, nil, err) }

// domainOr passes a domain error as it is and words any other.
func (s *Store) domainOr(ctx context.Context, err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return s.connError(ctx, err)
}

// InsertAudit stores audit row e on conn, inside the caller's transaction.
func InsertAudit(ctx context.Context, conn *sql.Conn, e domain.AuditEntry) error {
	_, err := conn.ExecContext(ctx, auditInsert, auditArgs(e)...)
	return err
}

// Head returns the id and hash of the memory chain's last event (0 and
// the genesis hash when there is none), read on conn.
func Head(ctx context.Context, conn *sql.Conn) (int64, string, error) {
	var id int64
	var hash string
	err := conn.QueryRowContext(ctx, "SELECT id, hash FROM memory_events ORDER BY id DESC LIMIT 1").Scan(&id, &hash)
	if err == sql.ErrNoRows {
		return 0, domain.Genesis, nil
	}
	return id, hash, err
}

// ArmDeadline interrupts SQLite on h once ctx is done; the returned stop
// waits until no interrupt can arrive any more.
func ArmDeadline(ctx context.Context, h engine.Handle) (stop func()) { return armDeadline(ctx, h) }

// QuoteIdent quotes name as an SQL identifier.
func QuoteIdent(name string) string { return quoteIdent(name) }

// QueryOn runs q on conn and calls scan for each row.
func QueryOn(ctx context.Context, conn *sql.Conn, scan func(*sql.Rows) error, q string, args ...any) error {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// IsStatementError reports whether err is SQLite's generic SQLITE_ERROR:
// the statement itself was refused (SQLite could not parse or resolve
// it), not the connection, a lock, the heap or the file.
func IsStatementError(err error) bool {
	code, ok := primaryCode(err)
	return ok && code == engine.CodeError
}

// IndexMissing reports whether the file conn is on has no search_memory
// index (memory_fts): read from the schema, so a failed statement on the
// index is told apart from other failures without reading its wording.
func IndexMissing(ctx context.Context, conn *sql.Conn) bool {
	var n int
	err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memory_fts'").Scan(&n)
	return err == nil && n == 0
}

// IndexLag is how many of the memory's events search_memory's index has
// not taken in yet (appended by another program since bootstrap synced
// it), read on conn: the largest event id against the index's largest,
// two b-tree seeks (readIndexState's counts walk both tables, which
// every search would pay: milliseconds at 100k events).
func IndexLag(ctx context.Context, conn *sql.Conn) (int64, error) {
	var lag int64
	err := conn.QueryRowContext(ctx, `SELECT max(0, (SELECT coalesce(max(id), 0) FROM memory_events) - (SELECT coalesce(max(id), 0) FROM memory_fts_docsize WHERE id > 0))`).Scan(&lag)
	return lag, err
}

// HasRetractions reports whether the file has retract_event's side table
// (memschema.go), read on conn (a connection or the pool): search counts the retracted matches only
// where it exists.
func HasRetractions(ctx context.Context, conn interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	return hasRetractions(ctx, conn)
}

// EnsureSides makes the memory's side tables, the retractions and the
// provenance (memschema.go), in conn's write transaction when the file
// lacks them.
func EnsureSides(ctx context.Context, conn *sql.Conn) error { return ensureSides(ctx, conn) }

// EnsureSignatures makes the table of the chain's head signatures
// (memschema.go) in conn's write transaction when the file lacks it.
func EnsureSignatures(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, signaturesSQL)
	return err
}
