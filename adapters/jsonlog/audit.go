// Package jsonlog is the audit sink that writes nothing to the database: one
// JSON object per tool call on a stream (stderr in read-only mode), so the
// audit trail exists even when the database must stay untouched.
package jsonlog

import (
	"context"
	"io"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// AuditSink writes audit entries as JSON lines.
type AuditSink struct {
	mu sync.Mutex
	w  io.Writer
}

var _ ports.AuditSink = (*AuditSink)(nil)

// New returns a sink writing to w (typically os.Stderr).
func New(w io.Writer) *AuditSink { return &AuditSink{w: w} }

// Record writes e as one line: {"audit": "query_log", "ts": ..., "tool": ...,
// "ok": ..., "error": ...}, with the same fields as a query_log row.
func (s *AuditSink) Record(_ context.Context, e domain.AuditEntry) error {
	d := domain.Detail{
		{Key: "audit", Value: "query_log"},
		{Key: "ts", Value: e.TS},
		{Key: "session", Value: e.Session},
		{Key: "tool", Value: e.Tool},
		{Key: "query", Value: e.Query},
		{Key: "ok", Value: e.OK},
		{Key: "rows", Value: rows(e.Rows)},
		{Key: "error", Value: nullable(e.Error)},
		{Key: "duration_ms", Value: e.DurationMS},
		{Key: "detail", Value: domain.RawJSON(e.Detail)},
	}
	line := d.String() + "\n"
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := io.WriteString(s.w, line)
	return err
}

func rows(n *int64) any {
	if n == nil {
		return nil
	}
	return *n
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
