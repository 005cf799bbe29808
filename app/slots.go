package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// slots bounds how many calls of a kind run at once. Every call in flight
// holds memory (its SQLite statement, its row, its search lines), so the
// process's budget holds only if their number does: 60 concurrent reads of
// large rows reached 1.6 GB before the bound, and 16 concurrent searches
// of an 8 MiB value 370 MB. A call that finds every slot taken waits; its
// deadline started on arrival, so a call that never gets a slot ends with
// an error naming the setting at its deadline.
type slots struct {
	c       chan struct{}
	setting string // the flag that sizes it, for messages
	what    string // what runs in a slot, for messages
}

// newSlots returns n slots; n <= 0 means no bound.
func newSlots(n int, setting, what string) slots {
	if n <= 0 {
		return slots{}
	}
	return slots{c: make(chan struct{}, n), setting: setting, what: what}
}

// acquire takes a slot, or fails when ctx ends first. timeout words the
// error.
func (s slots) acquire(ctx context.Context, timeout string) error {
	if s.c == nil {
		return nil
	}
	select {
	case s.c <- struct{}{}:
		return nil
	default:
	}
	select {
	case s.c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return s.errNoSlot(ctx, timeout)
	}
}

// release gives back a slot taken by acquire.
func (s slots) release() {
	if s.c != nil {
		<-s.c
	}
}

// errNoSlot says why a call never started and what to change.
func (s slots) errNoSlot(ctx context.Context, timeout string) error {
	busy := fmt.Sprintf("%d other %s (%s)", cap(s.c), s.what, s.setting)
	if errors.Is(ctx.Err(), context.Canceled) {
		return domain.Errorf(domain.ErrTimeout, "the call was cancelled while it waited for one of %s to finish; nothing was run", busy)
	}
	return domain.Errorf(domain.ErrTimeout, "the server was running %s for the whole %ss deadline, so this call never started and nothing was run; "+
		"retry it when fewer are in flight, or raise %s or --query-timeout", busy, timeout, s.setting)
}
