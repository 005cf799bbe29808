package webui

import (
	"context"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Reader runs one read-tier statement (ports.StatementRunner's Read): the
// authorizer's read policy applies to every query a page makes.
type Reader interface {
	Read(ctx context.Context, sql string, columns func([]string), row ports.RowFunc) error
}

// Tools are the tools a page calls as the CLI does, audited like any call:
// verify_chain behind the overview's button, read_query for the user's
// tables (its result carrying the table as typed values:
// app.Service.KeepingTables); and the chain's state as the core last
// verified it, which the overview and the checkpoints page show on every
// visit.
type Tools interface {
	ports.ChainChecker
	VerifyChain(ctx context.Context, r domain.VerifyChainRequest) (ports.Result, error)
	ReadQuery(ctx context.Context, r domain.ReadQueryRequest) (ports.Result, error)
}

// Snapshot is one snapshot file as the Snapshots page lists it.
type Snapshot struct {
	Name     string
	Bytes    int64
	Modified time.Time
}

// Snapshots lists the snapshot folder and restores one over the database
// as `snapshots restore NAME --over` does (a fresh snapshot first, whose
// base name it returns).
type Snapshots interface {
	List() ([]Snapshot, error)
	RestoreOver(ctx context.Context, name string) (fresh string, err error)
}

// UndoResult is what an applied undo recorded.
type UndoResult struct {
	EventID int64
	// Fresh is the snapshot taken first, a base name ("" when off).
	Fresh string
}

// Undoer is the undo command's use case: it plans the undo of call (0: the
// latest destructive call not undone yet), asks decide about that plan,
// and restores when decide says apply, refusing objects changed later
// unless overwriteLater. Without apply the result is zero.
type Undoer interface {
	Undo(ctx context.Context, call int64, decide func(domain.UndoPlan) (apply, overwriteLater bool)) (domain.UndoPlan, UndoResult, error)
}

// Pending is one question of the approval queue.
type Pending struct {
	ID int64
	// Tool and Query are the call that waits; Impact is the exact text the
	// person is asked to confirm.
	Tool, Query, Impact string
	// Asked is when it was queued, Expires when the call stops waiting,
	// Session the server process that asked.
	Asked, Expires, Session string
}

// Approvals is the approval queue: the questions waiting, and the person's
// answer to one.
type Approvals interface {
	Pending(ctx context.Context) ([]Pending, error)
	Answer(ctx context.Context, id int64, approve bool) error
}

// Deps are what the web view reads and acts through. DB is required; a nil
// Audit means the audit log is not in a SQLite file this process can read;
// a nil Undo, Snapshots or Approvals hides that part.
type Deps struct {
	DB    Reader
	Audit Reader
	// Recall, when set, answers the Memory page's search from the
	// full-text index search_memory uses; without it a LIKE bounded to
	// one page of matches does.
	Recall ports.MemoryRecall
	Tools  Tools
	// Snapshots lists the snapshots; Undo undoes a call (nil: read-only).
	Snapshots Snapshots
	Undo      Undoer
	Approvals Approvals
	// Limits are the server's (read_query's caps).
	Limits domain.Limits
	// ReadOnly hides and refuses every action.
	ReadOnly bool
	// Replication describes replication when on ("" when off).
	Replication string
	// Clock stamps sessions; nil is the system clock.
	Clock ports.Clock
}
