package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// undoer is a hand-written [ports.Undoer]: it answers call and the
// objects, and records what Restore was given.
type undoer struct {
	call                    domain.UndoCall
	snapshot, after, live   domain.UndoObjects
	replayErr               error
	restored                []domain.UndoPlan
	event                   domain.Event
	entry                   domain.AuditEntry
	snapshotsBeforeRestores []int
	snaps                   *fake.Snapshots
}

var _ ports.Undoer = (*undoer)(nil)

func (u *undoer) Call(context.Context, int64) (domain.UndoCall, error) { return u.call, nil }

func (u *undoer) Inspect(context.Context, domain.UndoCall) (domain.UndoObjects, domain.UndoObjects, domain.UndoObjects, error, error) {
	return u.snapshot, u.after, u.live, u.replayErr, nil
}

func (u *undoer) Restore(_ context.Context, p domain.UndoPlan, next func(int64, string) (domain.Event, error), audit ports.AuditFunc[domain.Event]) (domain.Event, error) {
	u.restored = append(u.restored, p)
	u.snapshotsBeforeRestores = append(u.snapshotsBeforeRestores, len(u.snaps.Reasons()))
	e, err := next(4, "ab")
	if err != nil {
		return e, err
	}
	u.event, u.entry = e, audit(e)
	return e, nil
}

func undoCase() *undoer {
	t := func(content string) domain.UndoObject {
		return domain.UndoObject{Type: "table", Name: "t", Table: "t", SQL: "CREATE TABLE t(x)", Content: content}
	}
	return &undoer{
		call:     domain.UndoCall{ID: 9, TS: "2026-01-31T12:00:00Z", Tool: domain.ToolDestructiveQuery, Query: "DELETE FROM t", OK: true, Snapshot: "/s/m.db"},
		snapshot: domain.UndoObjects{t("full")}, after: domain.UndoObjects{t("empty")}, live: domain.UndoObjects{t("empty")},
		snaps: &fake.Snapshots{Path: "/s/fresh.db"},
	}
}

func TestUndoAppliesThePlanWithItsEventAndAuditRow(t *testing.T) {
	t.Parallel()
	u := undoCase()
	uc := app.NewUndo(app.UndoDeps{Undoer: u, Snapshots: u.snaps, Clock: fake.NewClock(time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)), Session: "sess"})
	plan, err := uc.Plan(context.Background(), 9)
	require.NoError(t, err)
	require.Len(t, plan.Restore, 1)
	res, err := uc.Apply(context.Background(), plan, false, "--overwrite-later")
	require.NoError(t, err)
	assert.Equal(t, "/s/fresh.db", res.Fresh)
	assert.Equal(t, []int{1}, u.snapshotsBeforeRestores, "the fresh snapshot is taken before the restore")
	assert.Equal(t, int64(5), res.Event.ID)
	assert.Equal(t, domain.UndoEventKind, res.Event.Kind)
	assert.Equal(t, "sess", res.Event.Session)
	assert.Equal(t, "2026-02-01T08:00:00Z", res.Event.TS)
	assert.Contains(t, res.Event.Content, "undo of call #9 (destructive_query: DELETE FROM t): restored ['t']")
	assert.Equal(t, domain.UndoTool, u.entry.Tool)
	assert.True(t, u.entry.OK)
	assert.Equal(t, `{"call": 9, "from_snapshot": "/s/m.db", "restored": ["t"], "overwrote_later": [], "event_id": 5, "fresh_snapshot": "/s/fresh.db"}`, u.entry.Detail)
}

func TestUndoRefusesLaterChangesWithoutTheFlag(t *testing.T) {
	t.Parallel()
	u := undoCase()
	u.live = domain.UndoObjects{{Type: "table", Name: "t", Table: "t", SQL: "CREATE TABLE t(x)", Content: "written later"}}
	uc := app.NewUndo(app.UndoDeps{Undoer: u, Snapshots: u.snaps, Clock: fake.NewClock(time.Now())})
	plan, err := uc.Plan(context.Background(), 0)
	require.NoError(t, err)
	_, err = uc.Apply(context.Background(), plan, false, "--overwrite-later")
	require.ErrorIs(t, err, domain.ErrConflict)
	assert.Empty(t, u.restored, "nothing restored")
	assert.Empty(t, u.snaps.Reasons(), "no snapshot taken")
	_, err = uc.Apply(context.Background(), plan, true, "--overwrite-later")
	require.NoError(t, err)
	assert.Contains(t, u.entry.Detail, `"overwrote_later": ["t"]`)
}

func TestUndoPlanWithoutAReplayCountsEverythingAsLater(t *testing.T) {
	t.Parallel()
	u := undoCase()
	u.after, u.replayErr = nil, errors.New("no such function: f")
	uc := app.NewUndo(app.UndoDeps{Undoer: u, Clock: fake.NewClock(time.Now())})
	plan, err := uc.Plan(context.Background(), 0)
	require.NoError(t, err)
	assert.False(t, plan.Replayed)
	assert.Equal(t, "no such function: f", plan.ReplayProblem)
	assert.Len(t, plan.Later, 1)
	assert.Contains(t, plan.Describe(), "could not be replayed")
}

func TestUndoPlanRefusesACallItCannotUndo(t *testing.T) {
	t.Parallel()
	u := undoCase()
	u.call.OK = false
	_, err := app.NewUndo(app.UndoDeps{Undoer: u, Clock: fake.NewClock(time.Now())}).Plan(context.Background(), 9)
	require.ErrorIs(t, err, domain.ErrInvalidArgument)
}
