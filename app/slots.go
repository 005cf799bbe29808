package app

import (
	"context"
	"errors"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// slots bounds the tool calls that run at once (--max-concurrent-calls).
// Every call in flight holds memory (its SQLite statement, its row, its
// search lines), so the process's budget holds only if their number does:
// 60 concurrent reads of large rows reached 1.6 GB before the bound. A call
// that finds every slot taken waits; its deadline started on arrival, so a
// call that never gets a slot ends with [errNoSlot] at its deadline.
type slots chan struct{}

// newSlots returns n slots; n <= 0 means no bound.
func newSlots(n int) slots {
	if n <= 0 {
		return nil
	}
	return make(slots, n)
}

// acquire takes a slot, or fails when ctx ends first.
func (s slots) acquire(ctx context.Context, l domain.Limits) error {
	if s == nil {
		return nil
	}
	select {
	case s <- struct{}{}:
		return nil
	default:
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errNoSlot(ctx, l)
	}
}

// release gives back a slot taken by acquire.
func (s slots) release() {
	if s != nil {
		<-s
	}
}

// errNoSlot says why a call never started and what to change.
func errNoSlot(ctx context.Context, l domain.Limits) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return domain.Errorf(domain.ErrTimeout, "the call was cancelled while it waited for one of the %d calls in flight to finish (--max-concurrent-calls); nothing was run", l.MaxConcurrentCalls)
	}
	return domain.Errorf(domain.ErrTimeout, "the server was running %d other calls (--max-concurrent-calls) for the whole %ss deadline, so this call never started and nothing was run; "+
		"retry it when fewer calls are in flight, or raise --max-concurrent-calls or --query-timeout", l.MaxConcurrentCalls, domain.FormatSeconds(l.QueryTimeout))
}
