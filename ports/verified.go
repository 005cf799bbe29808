package ports

import (
	"context"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// MemoryMark is an opaque point in a [MemoryTail]'s history.
type MemoryMark string

// MemoryTail is a [MemoryStore] that can tell whether anything but this
// process's own memory and audit writes changed its file since a mark, so
// that a chain verified once need only be checked from its old head on.
type MemoryTail interface {
	// Mark returns the file's point now, to take before a whole walk
	// ([MemoryStore.Events]); ok is false when the store cannot tell,
	// and every walk is then whole.
	Mark() (mark MemoryMark, ok bool)
	// EventsAfter walks, in one read transaction, the event afterID and
	// those after it in id order, when nothing but
	// this process's own memory and audit commits reached the file since
	// mark. ok false means something else committed (or nothing can
	// tell) and nothing was walked. next is the point to check from the
	// next time.
	EventsAfter(ctx context.Context, mark MemoryMark, afterID int64, fn func(domain.Event) bool) (next MemoryMark, ok bool, err error)
	// ResumeFrom is [MemoryStore.Resume] for a chain whose events
	// 1..verified were just verified, one per id: only the events after
	// verified need counting one by one.
	ResumeFrom(ctx context.Context, max int, exclude []string, verified int64) (domain.ResumeState, error)
}

// ChainCheck is the memory chain as the core last verified it, for a page
// that shows its state on every visit.
type ChainCheck struct {
	// Result is the verification's result.
	Result domain.VerifyResult
	// Whole says this answer walked the whole chain; otherwise only the
	// events this process appended since the last walk were checked on
	// from its head (Result's checkpoint counts are the last walk's).
	Whole bool
	// Walked is when the last whole walk began; Checked when this answer
	// was made.
	Walked, Checked time.Time
}

// ChainChecker answers the chain's state cheaply when nothing but this
// process changed the file since it last verified, and walks the whole
// chain otherwise.
type ChainChecker interface {
	VerifiedChain(ctx context.Context) (ChainCheck, error)
}
