package sqlite

import (
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"

	"context"
	"fmt"
	"strings"
	"time"
)

// bootstrapSQL creates the server's tables, their append-only triggers, the
// audit index and the query_errors view. Its memory and audit objects are
// byte-compatible with the Python reference, so a database made by either
// server works with the other, and it is idempotent.
const bootstrapSQL = `
CREATE TABLE IF NOT EXISTS memory_events (
    id        INTEGER PRIMARY KEY,
    ts        TEXT NOT NULL,
    session   TEXT NOT NULL,
    kind      TEXT NOT NULL DEFAULT 'note',
    content   TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL UNIQUE
);
CREATE TRIGGER IF NOT EXISTS memory_events_no_update BEFORE UPDATE ON memory_events
    BEGIN SELECT RAISE(ABORT, 'memory_events is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_events_no_delete BEFORE DELETE ON memory_events
    BEGIN SELECT RAISE(ABORT, 'memory_events is append-only'); END;

CREATE TABLE IF NOT EXISTS memory_checkpoints (
    id            INTEGER PRIMARY KEY,
    ts            TEXT NOT NULL,
    session       TEXT NOT NULL,
    summary       TEXT NOT NULL,
    last_event_id INTEGER NOT NULL,
    head_hash     TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS memory_checkpoints_no_update BEFORE UPDATE ON memory_checkpoints
    BEGIN SELECT RAISE(ABORT, 'memory_checkpoints is append-only'); END;
CREATE TRIGGER IF NOT EXISTS memory_checkpoints_no_delete BEFORE DELETE ON memory_checkpoints
    BEGIN SELECT RAISE(ABORT, 'memory_checkpoints is append-only'); END;

CREATE TABLE IF NOT EXISTS query_log (
    id          INTEGER PRIMARY KEY,
    ts          TEXT NOT NULL,
    session     TEXT NOT NULL,
    tool        TEXT NOT NULL,
    query       TEXT,
    ok          INTEGER NOT NULL,
    rows        INTEGER,
    error       TEXT,
    duration_ms INTEGER NOT NULL,
    detail      TEXT
);
CREATE INDEX IF NOT EXISTS query_log_ts ON query_log(ts);
CREATE TRIGGER IF NOT EXISTS query_log_no_update BEFORE UPDATE ON query_log
    BEGIN SELECT RAISE(ABORT, 'query_log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS query_log_no_delete BEFORE DELETE ON query_log
    BEGIN SELECT RAISE(ABORT, 'query_log is append-only'); END;

CREATE VIEW IF NOT EXISTS query_errors AS
-- description: failed tool calls, newest first; shows where queries go wrong
SELECT id, ts, tool, query, error FROM query_log WHERE ok = 0 ORDER BY id DESC;
`

// approvalsSQL creates the approval queue's tables and their triggers
// (package approval). Only a server whose --confirm-fallback is queue runs it,
// so other databases do not gain them; the server-object check knows them
// in every database (expectedObjects), so a look-alike is refused wherever
// it appears, and the policy refuses writes to their names everywhere.
const approvalsSQL = `
CREATE TABLE IF NOT EXISTS mcp_approvals (
    id       INTEGER PRIMARY KEY,
    ts       TEXT NOT NULL,
    session  TEXT NOT NULL,
    tool     TEXT NOT NULL,
    query    TEXT NOT NULL,
    question TEXT NOT NULL,
    expires  TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS mcp_approvals_no_update BEFORE UPDATE ON mcp_approvals
    BEGIN SELECT RAISE(ABORT, 'mcp_approvals is append-only'); END;
CREATE TRIGGER IF NOT EXISTS mcp_approvals_no_delete BEFORE DELETE ON mcp_approvals
    BEGIN SELECT RAISE(ABORT, 'mcp_approvals is append-only'); END;

CREATE TABLE IF NOT EXISTS mcp_approval_decisions (
    approval_id INTEGER PRIMARY KEY REFERENCES mcp_approvals(id),
    ts          TEXT NOT NULL,
    decision    TEXT NOT NULL CHECK (decision IN ('approved', 'denied', 'expired')),
    decided_by  TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS mcp_approval_decisions_no_update BEFORE UPDATE ON mcp_approval_decisions
    BEGIN SELECT RAISE(ABORT, 'mcp_approval_decisions is append-only'); END;
CREATE TRIGGER IF NOT EXISTS mcp_approval_decisions_no_delete BEFORE DELETE ON mcp_approval_decisions
    BEGIN SELECT RAISE(ABORT, 'mcp_approval_decisions is append-only'); END;
CREATE TRIGGER IF NOT EXISTS mcp_approval_decisions_known BEFORE INSERT ON mcp_approval_decisions
    WHEN NOT EXISTS (SELECT 1 FROM mcp_approvals WHERE id = NEW.approval_id)
    BEGIN SELECT RAISE(ABORT, 'no such approval request'); END;
`

// bootstrap switches the file to WAL (so several server processes read while
// one writes), checks the server objects already there (serverobjects.go)
// and creates the missing ones, search_memory's index included, in one
// transaction.
func (s *Store) bootstrap(ctx context.Context) error {
	mode, err := s.setWAL(ctx)
	if err != nil {
		return fmt.Errorf("set WAL mode on %s: %s", s.name, s.scrub(err.Error()))
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("set WAL mode on %s: SQLite kept journal_mode=%s", s.name, mode)
	}
	conn, err := s.internal.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("bootstrap %s: %s", s.name, s.scrub(err.Error()))
	}
	if err := s.verifyServerObjects(ctx, conn); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	script := bootstrapSQL
	var queued int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM main.sqlite_schema WHERE name = 'mcp_approvals'").Scan(&queued); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("bootstrap %s: %s", s.name, s.scrub(err.Error()))
	}
	if s.opts.ApprovalQueue || queued > 0 {
		// A queue once made keeps its triggers (a repair may have dropped one).
		script += approvalsSQL
	}
	if _, err := conn.ExecContext(ctx, script); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("bootstrap %s: %s", s.name, s.scrub(err.Error()))
	}
	// search_memory's index: created, or rebuilt when it does not hold
	// what the memory tables hold (memindex.go).
	if s.indexRebuilt, err = syncIndex(ctx, conn); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("bootstrap %s: build the memory search index: %s", s.name, s.scrub(err.Error()))
	}
	if err := bootstrapSides(ctx, conn); err != nil { // memschema.go
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("bootstrap %s: %s", s.name, s.scrub(err.Error()))
	}
	if err := s.bootstrapSignatures(ctx, conn); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("bootstrap %s: %s", s.name, s.scrub(err.Error()))
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("bootstrap %s: %s", s.name, s.scrub(err.Error()))
	}
	return nil
}

// setWAL switches to WAL. Switching needs a moment of exclusive access, and
// SQLite answers SQLITE_BUSY at once (the busy timeout does not cover it)
// when several servers start together on a new file, so it retries for up
// to the busy timeout. A file already in WAL mode needs no switch.
func (s *Store) setWAL(ctx context.Context) (string, error) {
	var mode string
	deadline := time.Now().Add(busyTimeout)
	for {
		err := s.internal.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
		if err == nil && strings.EqualFold(mode, "wal") {
			return mode, nil
		}
		if err == nil {
			err = s.internal.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return mode, err
		}
		select {
		case <-ctx.Done():
			return mode, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tableKinds asks SQLite which tables are real virtual-table shadow tables
// and which are virtual tables (PRAGMA table_list), so the policy never
// guesses from names.
func tableKinds(h engine.Handle) (shadow, virtual map[string]bool, err error) {
	st, _, err := h.Prepare("SELECT name, type FROM pragma_table_list WHERE type IN ('shadow', 'virtual') AND schema = 'main'")
	if err != nil {
		return nil, nil, err
	}
	defer st.Finalize()
	shadow, virtual = map[string]bool{}, map[string]bool{}
	v := make([]any, 2)
	for {
		more, err := st.Step()
		if err != nil {
			return nil, nil, err
		}
		if !more {
			return shadow, virtual, nil
		}
		st.Row(v)
		name, _ := v[0].(string)
		if v[1] == "shadow" {
			shadow[strings.ToLower(name)] = true
		} else {
			virtual[strings.ToLower(name)] = true
		}
	}
}

// shadowTables is the same question asked on a pooled internal connection.
func (s *Store) shadowTables(ctx context.Context) (map[string]bool, error) {
	rows, err := s.internal.QueryContext(ctx, "SELECT name FROM pragma_table_list WHERE type = 'shadow' AND schema = 'main'")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[strings.ToLower(name)] = true
	}
	return out, rows.Err()
}
