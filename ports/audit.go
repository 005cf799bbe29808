package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// AuditSink records one entry per tool call, failures included.
type AuditSink interface {
	// Record stores e. A failure is returned for the caller to log; it never
	// changes the tool's result.
	Record(ctx context.Context, e domain.AuditEntry) error
}
