package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// This process's writes (agent statements, events, checkpoints, views and
// audit batches) take turns on an in-process lock before they ask SQLite
// for the write lock. SQLite's busy handler polls with growing sleeps and
// ends in "database is locked" after the busy timeout, which would tell the
// agent that another program holds the file when the holder is this very
// server; behind the in-process lock a write waits in line, until its own
// deadline, and SQLITE_BUSY can only mean another program.

// Waiting for this process's own writes is bounded by the call's deadline
// only; waiting for another program's lock is bounded by the busy timeout
// counted from when the write arrived, as if every write of the process
// had waited for that program side by side (as they did before they
// queued). So when another program holds the lock, N queued writes all
// fail about one busy timeout after they arrived, not N busy timeouts.

// minForeignWait is the least a write that reaches the head of the queue
// waits for SQLite's lock, even when its budget is spent waiting in line:
// enough to find the lock free, not enough to stack up.
const minForeignWait = 100 * time.Millisecond

// foreignWait is how long a write whose budget for another program's lock
// ends at budget (its arrival plus the busy timeout) may wait for SQLite's
// lock now, within ctx's deadline.
func foreignWait(ctx context.Context, budget time.Time) time.Duration {
	w := max(time.Until(budget), minForeignWait)
	if dl, ok := ctx.Deadline(); ok {
		w = min(w, time.Until(dl))
	}
	return max(w, 0)
}

// setBusy sets the busy timeout of a database/sql connection.
func setBusy(conn *sql.Conn, d time.Duration) error {
	return conn.Raw(func(dc any) error {
		h, err := engine.Open(dc)
		if err != nil {
			return err
		}
		h.SetBusyTimeout(d)
		return nil
	})
}

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
func (s *wording) queuedError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errCancelled()
	}
	return domain.Errorf(domain.ErrTimeout, "the call's deadline passed while it waited for an earlier write of this server to finish "+
		"(this server runs its writes one at a time); nothing was changed%s", s.raiseTimeout())
}

// raiseTimeout is the advice that ends a message about a deadline that
// passed while waiting.
func (s *wording) raiseTimeout() string {
	if s.queryTimeout <= 0 {
		return ". Retry the call, or start the server with a larger --query-timeout"
	}
	return ". Retry the call, or start the server with a larger --query-timeout (now " + domain.FormatSeconds(s.queryTimeout) + "s) if writes take that long"
}
