package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// MemoryStore keeps the append-only, hash-chained event log and checkpoints.
// The hashes are computed by the core (package domain); the store only makes
// each append atomic against the current head.
type MemoryStore interface {
	// Append reads the head inside one write transaction, lets next build
	// the event from it, stores it durably together with audit's entry
	// (see [AuditFunc]) and returns it.
	Append(ctx context.Context, next func(headID int64, headHash string) (domain.Event, error), audit AuditFunc[domain.Event]) (domain.Event, error)
	// Checkpoint does the same for a checkpoint.
	Checkpoint(ctx context.Context, next func(headID int64, headHash string) (domain.Checkpoint, error), audit AuditFunc[domain.Checkpoint]) (domain.Checkpoint, error)
	// Events calls checkpoint, when it is not nil, for every checkpoint in
	// id order, then fn for every event in id order, all in one read
	// transaction, and returns the total count of events. fn returning
	// false stops the walk (the total is still counted).
	Events(ctx context.Context, checkpoint func(domain.Checkpoint), fn func(domain.Event) bool) (int64, error)
	// Resume loads the latest checkpoint (nil when none), whether the event
	// it points at still has its hash, and the events after it (most recent
	// max, oldest first) not of the excluded kinds, with their total count.
	// Retracted events and their retractions are left out; the retracted
	// ones after the checkpoint are counted in Retracted.
	Resume(ctx context.Context, max int, exclude []string) (domain.ResumeState, error)
	// Retract appends the retraction of event target in one write
	// transaction: next gets the head and the target and builds the
	// retraction event ([domain.NewRetraction]); the store keeps it and
	// its row of [domain.RetractionsTable] together with audit's entry.
	// A target retracted already is left as it is: Retract returns its
	// retraction with appended false, without calling next or audit.
	// Errors: [domain.ErrNotFound] when there is no event target; next's.
	Retract(ctx context.Context, target int64, next func(headID int64, headHash string, target domain.Event) (domain.Event, domain.Retraction, error), audit AuditFunc[domain.Retraction]) (x domain.Retraction, appended bool, err error)
	// HeadSignature returns the newest head signature of an event at or
	// before upTo (nil when there is none) and the hash that event has
	// now (found false when the event is gone), in one read transaction.
	HeadSignature(ctx context.Context, upTo int64) (sig *domain.HeadSignature, hash string, found bool, err error)
}
