package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// AuditSink records one entry per tool call, failures included.
type AuditSink interface {
	// Record stores e durably before it returns: committed to the
	// database, or written out as a line. Entries of calls that overlap
	// may be committed together (group commit). It returns an error when e
	// could not be stored before ctx's deadline; the caller must then not
	// hand the call's result to the agent.
	Record(ctx context.Context, e domain.AuditEntry) error
}

// AuditFunc builds a call's audit entry from what a write stored (the
// event, the checkpoint, the view's name). A store's write method that takes
// one calls it once the work has succeeded, just before COMMIT, and inserts
// the entry in the same transaction: the write and its row commit together
// or not at all. nil records nothing.
type AuditFunc[T any] func(stored T) domain.AuditEntry

// AuditSealer is implemented by a write port (a [StatementRunner],
// [ViewWriter] or [MemoryStore]) that can store a call's audit entry
// itself, in the transaction of the change it records (see [AuditFunc]):
// it can when the audit log lives in the database it writes.
type AuditSealer interface {
	// Seals reports whether the port stores sink's entries itself, in
	// its own transactions: sink writes into the port's database.
	Seals(sink AuditSink) bool
}
