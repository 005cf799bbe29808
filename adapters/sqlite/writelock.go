package sqlite

import (
	"context"
	"errors"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// This process's writes (agent statements, events, checkpoints, views and
// audit batches) take turns on an in-process lock before they ask SQLite
// for the write lock. SQLite's busy handler polls with growing sleeps and
// ends in "database is locked" after the busy timeout, which would tell the
// agent that another program holds the file when the holder is this very
// server; behind the in-process lock a write waits in line, until its own
// deadline, and SQLITE_BUSY can only mean another program.

// lockWrites waits for this process's earlier writes, until ctx ends, and
// returns the function that lets the next one go.
func (s *Store) lockWrites(ctx context.Context) (release func(), err error) {
	select {
	case s.writeTurn <- struct{}{}:
		return func() { <-s.writeTurn }, nil
	default:
	}
	select {
	case s.writeTurn <- struct{}{}:
		return func() { <-s.writeTurn }, nil
	case <-ctx.Done():
		return nil, s.queuedError(ctx)
	}
}

// queuedError says the call gave up while an earlier write of this same
// server held the lock: not another program, and not the call's own SQL.
func (s *Store) queuedError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errCancelled()
	}
	return domain.Errorf(domain.ErrTimeout, "the call's deadline passed while it waited for an earlier write of this server to finish "+
		"(this server runs its writes one at a time); nothing was changed%s", s.raiseTimeout())
}

// raiseTimeout is the advice that ends a message about a deadline that
// passed while waiting.
func (s *Store) raiseTimeout() string {
	if s.opts.QueryTimeout <= 0 {
		return ". Retry the call, or start the server with a larger --query-timeout"
	}
	return ". Retry the call, or start the server with a larger --query-timeout (now " + domain.FormatSeconds(s.opts.QueryTimeout) + "s) if writes take that long"
}
