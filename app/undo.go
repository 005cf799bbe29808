package app

import (
	"context"
	"strconv"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Undo is the use case of the person's undo command: it reverses one
// destructive_query call by restoring, from the snapshot taken before it,
// exactly the user objects the call changed, and leaves the memory tables
// and query_log as they are, adding an event and an audit row of its own.
// It is not an agent tool: no agent policy applies, and only the command
// line builds it.
type Undo struct {
	d UndoDeps
}

// UndoDeps are the ports [Undo] uses.
type UndoDeps struct {
	// Undoer reads the call and the objects, and restores.
	Undoer ports.Undoer
	// Snapshots, when set, takes a fresh snapshot before the restore, so
	// the undo itself can be reversed.
	Snapshots ports.Snapshotter
	// Clock stamps the event and the audit row.
	Clock ports.Clock
	// Session names the process in the event and the audit row.
	Session string
}

// NewUndo returns the use case. Undoer and Clock are required.
func NewUndo(d UndoDeps) *Undo {
	if d.Undoer == nil || d.Clock == nil {
		panic("app.NewUndo: Undoer and Clock are required")
	}
	return &Undo{d: d}
}

// Plan finds call id (0: the latest destructive call that took a
// snapshot) and works out what undoing it restores and which of those
// objects changed again later. It writes nothing.
func (u *Undo) Plan(ctx context.Context, id int64) (domain.UndoPlan, error) {
	call, err := u.d.Undoer.Call(ctx, id)
	if err != nil {
		return domain.UndoPlan{}, err
	}
	if err := call.CheckUndoable(); err != nil {
		return domain.UndoPlan{}, err
	}
	snapshot, after, live, replayErr, err := u.d.Undoer.Inspect(ctx, call)
	if err != nil {
		return domain.UndoPlan{}, err
	}
	plan := domain.PlanUndo(call, snapshot, after, live, replayErr == nil)
	if replayErr != nil {
		plan.ReplayProblem = replayErr.Error()
	}
	return plan, nil
}

// UndoResult is what an applied undo did.
type UndoResult struct {
	// Event is the memory event that records it.
	Event domain.Event
	// Fresh is the snapshot taken just before ("" when snapshots are off).
	Fresh string
}

// Apply restores the plan's objects in one transaction, with its event and
// audit row. It refuses, writing nothing, when the plan would overwrite
// later changes and overwriteLater is false (flag names the option that
// allows it, for the message).
func (u *Undo) Apply(ctx context.Context, plan domain.UndoPlan, overwriteLater bool, flag string) (UndoResult, error) {
	var res UndoResult
	if plan.Empty() {
		return res, domain.Errorf(domain.ErrInvalidArgument, "nothing to restore: every object call #%d changed is as it was before it", plan.Call.ID)
	}
	if !overwriteLater {
		if err := plan.RefuseLater(flag); err != nil {
			return res, err
		}
	}
	start := u.d.Clock.Now()
	if u.d.Snapshots != nil {
		fresh, err := u.d.Snapshots.Snapshot(ctx, "before undo of call #"+strconv.FormatInt(plan.Call.ID, 10))
		if err != nil {
			return res, domain.Errorf(domain.ErrSnapshot, "%s; nothing was restored", err.Error())
		}
		res.Fresh = fresh
	}
	ts := domain.FormatTS(start)
	query := "undo call #" + strconv.FormatInt(plan.Call.ID, 10)
	restored := int64(len(plan.Restore))
	e, err := u.d.Undoer.Restore(ctx, plan, func(id int64, hash string) (domain.Event, error) {
		return domain.NewEvent(id, hash, ts, u.d.Session, domain.UndoEventKind, plan.EventContent())
	}, func(e domain.Event) domain.AuditEntry {
		return domain.AuditEntry{
			TS: ts, Session: u.d.Session, Tool: domain.UndoTool, Query: &query, OK: true, Rows: &restored,
			DurationMS: u.d.Clock.Now().Sub(start).Milliseconds(), Detail: plan.AuditDetail(e.ID, res.Fresh).String(),
		}
	})
	if err != nil {
		return res, err
	}
	res.Event = e
	return res, nil
}
