package fake

import (
	"context"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// AuditLog is an in-memory [ports.AuditSink]: it keeps every entry it is
// given. It is safe for concurrent use.
type AuditLog struct {
	// Err, when set, makes Record fail (the entry is not kept).
	Err error
	// RecordFn, when set, runs first; its error fails Record.
	RecordFn func(ctx context.Context, e domain.AuditEntry) error

	mu        sync.Mutex
	entries   []domain.AuditEntry
	deadlines []bool // whether each Record's context had a deadline
}

var _ ports.AuditSink = (*AuditLog)(nil)

// Record keeps e unless Err or RecordFn says otherwise, or ctx is done.
func (a *AuditLog) Record(ctx context.Context, e domain.AuditEntry) error {
	_, dl := ctx.Deadline()
	a.mu.Lock()
	a.deadlines = append(a.deadlines, dl)
	a.mu.Unlock()
	if a.RecordFn != nil {
		if err := a.RecordFn(ctx, e); err != nil {
			return err
		}
	}
	if a.Err != nil {
		return a.Err
	}
	if err := ctx.Err(); err != nil {
		return domain.Errorf(domain.ErrTimeout, "the audit row could not be written in time: %v", err)
	}
	a.add(e)
	return nil
}

// add keeps e: Record's entries, and those a write seals into its own
// transaction.
func (a *AuditLog) add(e domain.AuditEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, e)
}

// Entries returns a copy of the entries kept so far, in order.
func (a *AuditLog) Entries() []domain.AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]domain.AuditEntry(nil), a.entries...)
}

// Deadlines reports, for every Record call so far, whether its context
// carried a deadline.
func (a *AuditLog) Deadlines() []bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]bool(nil), a.deadlines...)
}
