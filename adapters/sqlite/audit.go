package sqlite

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

var _ ports.AuditSink = (*Store)(nil)

// Record appends one row to query_log on an internal connection of its own,
// so it is written even when the call it describes failed or timed out.
func (s *Store) Record(ctx context.Context, e domain.AuditEntry) error {
	var q, detail, errText sql.NullString
	var rows sql.NullInt64
	if e.Query != nil {
		q = sql.NullString{String: *e.Query, Valid: true}
	}
	if e.Rows != nil {
		rows = sql.NullInt64{Int64: *e.Rows, Valid: true}
	}
	if e.Error != "" {
		errText = sql.NullString{String: e.Error, Valid: true}
	}
	if e.Detail != "" {
		detail = sql.NullString{String: e.Detail, Valid: true}
	}
	ok := 0
	if e.OK {
		ok = 1
	}
	s.auditOnce.Do(func() {
		s.auditStmt, s.auditErr = s.internal.PrepareContext(context.WithoutCancel(ctx),
			"INSERT INTO query_log (ts, session, tool, query, ok, rows, error, duration_ms, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
	})
	if s.auditErr != nil {
		return s.auditErr
	}
	return retryNoMem(context.WithoutCancel(ctx), func() error {
		_, err := s.auditStmt.ExecContext(context.WithoutCancel(ctx), e.TS, e.Session, e.Tool, q, ok, rows, errText, e.DurationMS, detail)
		return err
	})
}
