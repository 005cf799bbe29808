package domain_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func table(name, sql, content string) domain.UndoObject {
	return domain.UndoObject{Type: "table", Name: name, Table: name, SQL: sql, Content: content}
}

func other(typ, name, tbl, sql string) domain.UndoObject {
	return domain.UndoObject{Type: typ, Name: name, Table: tbl, SQL: sql}
}

func names(ds []domain.ObjectDiff) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

func TestPlanUndoRestoresOnlyWhatTheCallChanged(t *testing.T) {
	t.Parallel()
	a := table("a", "CREATE TABLE a(x)", "a1")
	b := table("b", "CREATE TABLE b(x)", "b1")
	c := table("c", "CREATE TABLE c(x)", "c1")
	snapshot := domain.UndoObjects{a, b, c}
	// The call emptied a and b; later, b got rows again, c changed and
	// d was created: only a and b are the call's, and b changed later.
	after := domain.UndoObjects{table("a", a.SQL, "a0"), table("b", b.SQL, "b0"), c}
	live := domain.UndoObjects{table("a", a.SQL, "a0"), table("b", b.SQL, "b2"), table("c", c.SQL, "c2"), table("d", "CREATE TABLE d(x)", "d1")}
	call := domain.UndoCall{ID: 7, Later: []domain.LoggedCall{{ID: 8, Query: "INSERT INTO b VALUES (1)"}, {ID: 9, Query: "UPDATE c SET x = 1"}}}
	p := domain.PlanUndo(call, snapshot, after, live, true)
	assert.Equal(t, []string{"a", "b"}, names(p.Restore))
	assert.Equal(t, []string{"b"}, names(p.Later))
	assert.Equal(t, []domain.LoggedCall{call.Later[0]}, p.LaterCalls)
	var de *domain.Error
	require.ErrorAs(t, p.RefuseLater("--overwrite-later"), &de)
	assert.True(t, errors.Is(de, domain.ErrConflict))

	// A later call that already put an object back leaves nothing to do.
	p = domain.PlanUndo(call, snapshot, after, domain.UndoObjects{a, b, c}, true)
	assert.True(t, p.Empty())

	// Without a replay every difference is restored and counts as later.
	p = domain.PlanUndo(call, snapshot, nil, live, false)
	assert.Equal(t, []string{"a", "b", "c", "d"}, names(p.Restore))
	assert.Equal(t, names(p.Restore), names(p.Later))
}

func TestUndoStepsKeepTriggersFromFiring(t *testing.T) {
	t.Parallel()
	// DELETE FROM t, whose trigger logged into log: both are restored by
	// refilling; the trigger on t and the unrelated index stay as they are.
	tSQL, logSQL := "CREATE TABLE t(x)", "CREATE TABLE log(x)"
	trig := other("trigger", "t_del", "t", "CREATE TRIGGER t_del AFTER DELETE ON t BEGIN INSERT INTO log VALUES (old.x); END")
	idx := other("index", "t_x", "t", "CREATE INDEX t_x ON t(x)")
	snapshot := domain.UndoObjects{table("t", tSQL, "t1"), table("log", logSQL, "l0"), trig, idx}
	live := domain.UndoObjects{table("t", tSQL, "t0"), table("log", logSQL, "l1"), trig, idx}
	p := domain.PlanUndo(domain.UndoCall{ID: 1}, snapshot, live, live, true)
	require.Equal(t, []string{"t", "log"}, names(p.Restore))
	var got []string
	for _, s := range p.Steps() {
		op := map[domain.UndoOp]string{domain.UndoDrop: "drop", domain.UndoCreate: "create", domain.UndoCopyRows: "copy"}[s.Op]
		if s.Refill {
			op = "refill"
		}
		got = append(got, op+" "+s.Object.Name)
	}
	assert.Equal(t, []string{"drop t_del", "refill t", "refill log", "create t_del"}, got)
}

func TestUndoStepsRebuildARenamedTable(t *testing.T) {
	t.Parallel()
	// ALTER TABLE t RENAME TO t2 moved t's index and rewrote a view.
	snapshot := domain.UndoObjects{
		table("t", "CREATE TABLE t(x)", "r"), other("index", "t_x", "t", "CREATE INDEX t_x ON t(x)"),
		other("view", "v", "v", "CREATE VIEW v AS SELECT x FROM t"),
	}
	live := domain.UndoObjects{
		table("t2", `CREATE TABLE "t2"(x)`, "r"), other("index", "t_x", "t2", `CREATE INDEX t_x ON "t2"(x)`),
		other("view", "v", "v", `CREATE VIEW v AS SELECT x FROM "t2"`),
	}
	p := domain.PlanUndo(domain.UndoCall{ID: 1}, snapshot, live, live, true)
	var got []string
	for _, s := range p.Steps() {
		got = append(got, map[domain.UndoOp]string{domain.UndoDrop: "drop", domain.UndoCreate: "create", domain.UndoCopyRows: "copy"}[s.Op]+" "+s.Object.Type+" "+s.Object.Name)
	}
	assert.Equal(t, []string{"drop view v", "drop table t2", "create table t", "copy table t", "create index t_x", "create view v"}, got)
	assert.Empty(t, p.Later)
}

func TestUndoPlanChecksInsideTheTransaction(t *testing.T) {
	t.Parallel()
	snapshot := domain.UndoObjects{table("t", "CREATE TABLE t(x)", "t1"), table("u", "CREATE TABLE u(x)", "u1")}
	live := domain.UndoObjects{table("t", "CREATE TABLE t(x)", "t0"), table("u", "CREATE TABLE u(x)", "u1")}
	p := domain.PlanUndo(domain.UndoCall{ID: 1}, snapshot, live, live, true)
	assert.Empty(t, p.ChangedSince(live))
	// Another program changed u (untouched): fine; t, or a trigger on t: not.
	assert.Empty(t, p.ChangedSince(domain.UndoObjects{live[0], table("u", "CREATE TABLE u(x)", "u9")}))
	assert.Equal(t, []string{"t"}, p.ChangedSince(domain.UndoObjects{table("t", "CREATE TABLE t(x)", "t9"), live[1]}))
	assert.Equal(t, []string{"tr"}, p.ChangedSince(append(live, other("trigger", "tr", "t", "CREATE TRIGGER tr ..."))))
	// After the steps: t is the snapshot's and u as it was.
	assert.Empty(t, p.NotRestored(live, snapshot))
	assert.Equal(t, []string{"t"}, p.NotRestored(live, live))
	assert.Equal(t, []string{"u"}, p.NotRestored(live, domain.UndoObjects{snapshot[0], table("u", "CREATE TABLE u(x)", "u9")}))
}

func TestUndoCallCheckUndoable(t *testing.T) {
	t.Parallel()
	ok := domain.UndoCall{ID: 3, Tool: domain.ToolDestructiveQuery, OK: true, Snapshot: "/s/x.db"}
	assert.NoError(t, ok.CheckUndoable())
	for _, tc := range []struct {
		call domain.UndoCall
		kind error
	}{
		{domain.UndoCall{ID: 3, Tool: domain.ToolWriteQuery, OK: true}, domain.ErrInvalidArgument},
		{domain.UndoCall{ID: 3, Tool: domain.ToolDestructiveQuery, OK: false, Snapshot: "/s/x.db"}, domain.ErrInvalidArgument},
		{domain.UndoCall{ID: 3, Tool: domain.ToolDestructiveQuery, OK: true}, domain.ErrUnavailable},
	} {
		assert.ErrorIs(t, tc.call.CheckUndoable(), tc.kind, "%+v", tc.call)
	}
}

func TestObjectDiffSaysWhatUndoDoes(t *testing.T) {
	t.Parallel()
	tbl := table("t", "CREATE TABLE t(x)", "c")
	tbl.Rows = 3
	empty := tbl
	empty.Rows, empty.Content = 0, "e"
	one := tbl
	one.Rows, one.Content = 1, "o"
	fts := domain.UndoObject{Type: "table", Name: "docs", Table: "docs", SQL: "CREATE VIRTUAL TABLE docs USING fts5(body)", Virtual: true, Rows: 12}
	view := other("view", "v", "v", "CREATE VIEW v AS SELECT 1")
	view2 := other("view", "v", "v", "CREATE VIEW v AS SELECT 2")
	for _, tc := range []struct {
		d    domain.ObjectDiff
		want string
	}{
		{domain.ObjectDiff{Name: "t", Snapshot: &tbl}, "table 't': recreated, with its 3 rows"},
		{domain.ObjectDiff{Name: "t", Snapshot: &tbl, Now: &empty}, "table 't': rows put back (0 rows now, 3 before)"},
		{domain.ObjectDiff{Name: "t", Now: &empty}, "table 't': dropped (it did not exist before; it has 0 rows now)"},
		{domain.ObjectDiff{Name: "v", Snapshot: &view, Now: &view2}, "view 'v': definition put back"},
		{domain.ObjectDiff{Name: "docs", Snapshot: &fts}, "virtual table 'docs': recreated, with its content"},
		{domain.ObjectDiff{Name: "docs", Snapshot: &fts, Now: &fts}, "virtual table 'docs': content put back"},
		{domain.ObjectDiff{Name: "t", Snapshot: &one}, "table 't': recreated, with its 1 row"},
		{domain.ObjectDiff{Name: "t", Snapshot: &tbl, Now: &one}, "table 't': rows put back (1 row now, 3 before)"},
		{domain.ObjectDiff{Name: "t", Now: &one}, "table 't': dropped (it did not exist before; it has 1 row now)"},
	} {
		assert.Equal(t, tc.want, tc.d.String())
	}
}
