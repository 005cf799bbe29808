package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Undoer is what the person's undo command needs of the database: the
// destructive call as query_log has it, the user objects of the snapshot
// taken before it, of that snapshot with the call replayed and of the live
// file, and the restore itself. No agent reaches it: it is wired only into
// the undo command.
type Undoer interface {
	// Call returns the query_log row of call id (0: the latest
	// destructive_query that succeeded after taking a snapshot and that
	// no undo has reversed) with the writing calls that succeeded after it.
	//
	// Errors: [domain.ErrNotFound] when there is no such call.
	Call(ctx context.Context, id int64) (domain.UndoCall, error)
	// Inspect reads the user objects of the call's snapshot, of a private
	// copy of it with the call's statement replayed under the destructive
	// tier's policy (replayErr is that run's error, the after objects then
	// empty), and of the live database.
	//
	// Errors: [domain.ErrNotFound] when the snapshot is gone.
	Inspect(ctx context.Context, call domain.UndoCall) (snapshot, after, live domain.UndoObjects, replayErr error, err error)
	// Restore runs the plan's steps in one write transaction, with the
	// event next builds from the chain's head appended and audit's row
	// inserted in the same transaction, and returns the event. It first
	// checks that the live objects the plan touches are still the ones
	// it was made from.
	//
	// Errors: [domain.ErrConflict] when they changed meanwhile (nothing
	// was written); [domain.ErrBusy] when another program held the write
	// lock past the busy timeout.
	Restore(ctx context.Context, plan domain.UndoPlan, next func(headID int64, headHash string) (domain.Event, error), audit AuditFunc[domain.Event]) (domain.Event, error)
}
