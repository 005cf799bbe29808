package domain

import (
	"sort"
	"strings"
)

// UndoObject is one user object of a database file as undo compares
// them: its sqlite_schema entry and, for a table, a digest of its rows.
// The server's own objects and SQLite's internal ones are never among them;
// a virtual table's shadow tables are part of the virtual table (their rows
// are its content), not objects of their own.
type UndoObject struct {
	// Type is table, index, view or trigger.
	Type string
	// Name and Table are sqlite_schema's name and tbl_name.
	Name, Table string
	// SQL is the stored definition ("" for an index SQLite made itself).
	SQL string
	// Virtual marks a virtual table.
	Virtual bool
	// Rows is a table's row count (a virtual table's: its shadow tables').
	Rows int64
	// Content is a digest of a table's rows, in rowid or key order, with
	// its AUTOINCREMENT counter; "" for other objects.
	Content string
}

// IsTable reports whether o holds rows.
func (o UndoObject) IsTable() bool { return o.Type == "table" }

func (o UndoObject) key() string { return strings.ToLower(o.Name) }

// same reports whether o and p are the same definition with the same rows.
func (o UndoObject) same(p UndoObject) bool {
	return o.Type == p.Type && strings.EqualFold(o.Table, p.Table) && o.SQL == p.SQL && o.Virtual == p.Virtual && o.Content == p.Content
}

// UndoObjects are a database's user objects in sqlite_schema order (the order
// they were created in).
type UndoObjects []UndoObject

// Find returns the object called name (names compare as SQLite does,
// ignoring ASCII case).
func (os UndoObjects) Find(name string) (UndoObject, bool) {
	k := strings.ToLower(name)
	for _, o := range os {
		if o.key() == k {
			return o, true
		}
	}
	return UndoObject{}, false
}

func (os UndoObjects) byKey() map[string]UndoObject {
	m := make(map[string]UndoObject, len(os))
	for _, o := range os {
		m[o.key()] = o
	}
	return m
}

// IsUserObject reports whether an sqlite_schema entry is the user's: not
// SQLite's own (sqlite_sequence, sqlite_stat1, automatic indexes) and not
// a server object or attached to a server table. Undo reads, compares and
// restores only these.
func IsUserObject(name, table string) bool {
	return !strings.HasPrefix(strings.ToLower(name), "sqlite_") && !IsServerObject(name) && !IsServerTable(table)
}

// ObjectDiff is one object whose snapshot and current versions differ.
type ObjectDiff struct {
	// Name is the object's name.
	Name string
	// Snapshot is the object in the snapshot, nil when it did not exist.
	Snapshot *UndoObject
	// Now is the object in the database now, nil when it does not exist.
	Now *UndoObject
}

// Type is the object's type (the snapshot's when both exist).
func (d ObjectDiff) Type() string {
	if d.Snapshot != nil {
		return d.Snapshot.Type
	}
	return d.Now.Type
}

// String says what undo does to the object, in one line.
func (d ObjectDiff) String() string {
	s, n := d.Snapshot, d.Now
	what := d.Type() + " " + Quote(d.Name)
	if s != nil && s.Virtual || n != nil && n.Virtual {
		// Its row count is its shadow tables', not what a SELECT shows.
		switch {
		case n == nil:
			return "virtual " + what + ": recreated, with its content"
		case s == nil:
			return "virtual " + what + ": dropped (it did not exist before)"
		case s.SQL != n.SQL || s.Type != n.Type:
			return "virtual " + what + ": definition and content put back"
		}
		return "virtual " + what + ": content put back"
	}
	switch {
	case n == nil && s.IsTable():
		return what + ": recreated, with its " + plural(s.Rows, "row")
	case n == nil:
		return what + ": recreated"
	case s == nil && n.IsTable():
		return what + ": dropped (it did not exist before; it has " + plural(n.Rows, "row") + " now)"
	case s == nil:
		return what + ": dropped (it did not exist before)"
	case s.SQL != n.SQL || s.Type != n.Type:
		if s.IsTable() {
			return what + ": definition and rows put back (" + plural(n.Rows, "row") + " now, " + itoa(s.Rows) + " before)"
		}
		return what + ": definition put back"
	default:
		return what + ": rows put back (" + plural(n.Rows, "row") + " now, " + itoa(s.Rows) + " before)"
	}
}

// UndoCall is the destructive call an undo reverses, as query_log has it.
type UndoCall struct {
	// ID is its query_log id; TS, Tool and Query are its row's.
	ID              int64
	TS, Tool, Query string
	// OK is the row's ok.
	OK bool
	// Snapshot is the path of the snapshot taken before it ("" for none).
	Snapshot string
	// Later are the writing calls logged after it that succeeded.
	Later []LoggedCall
}

// LoggedCall is one query_log row, as undo lists later calls.
type LoggedCall struct {
	ID              int64
	TS, Tool, Query string
}

// String is the call in one line: its id, time, tool and SQL.
func (c LoggedCall) String() string {
	return "#" + itoa(c.ID) + " " + c.TS + " " + c.Tool + ": " + oneLine(c.Query)
}

// CheckUndoable refuses a call undo cannot reverse, saying why and what
// to do instead.
func (c UndoCall) CheckUndoable() error {
	switch {
	case c.Tool != ToolDestructiveQuery:
		return Errorf(ErrInvalidArgument, "call #%d is a %s call; only %s calls take a snapshot to undo from (see the log command for the calls)", c.ID, c.Tool, ToolDestructiveQuery)
	case !c.OK:
		return Errorf(ErrInvalidArgument, "call #%d failed, so it changed nothing: there is nothing to undo", c.ID)
	case c.Snapshot == "":
		return Errorf(ErrUnavailable, "call #%d ran with snapshots off (--snapshots 0), so there is no snapshot to undo it from", c.ID)
	}
	return nil
}

// UndoPlan is what an undo will do: the objects the call changed that
// differ now from the snapshot taken before it, put back from the
// snapshot; the server's tables (memory, query_log) are never among them.
type UndoPlan struct {
	// Call is the call undone.
	Call UndoCall
	// Restore are the objects undo puts back, in snapshot order, then the
	// ones the call created.
	Restore []ObjectDiff
	// Later are the objects of Restore that changed again after the call
	// (by a later call or another program): undo would overwrite those
	// changes, so it needs the person's explicit consent.
	Later []ObjectDiff
	// LaterCalls are the later logged calls that name one of Later's
	// objects: the likely authors of those changes.
	LaterCalls []LoggedCall
	// Replayed is false when the call could not be replayed on a copy of
	// its snapshot, so what it changed is not known apart from what later
	// calls did: every object that differs is in Restore and in Later.
	Replayed bool
	// ReplayProblem says why the replay failed, when it did.
	ReplayProblem string
	// Snapshot and Live are the objects the plan was made from; the
	// restore checks, inside its transaction, that the live objects it
	// touches are still these.
	Snapshot, Live UndoObjects
}

// PlanUndo compares the objects of the snapshot taken before a call,
// of that snapshot with the call replayed on it (after; replayed false
// when that failed) and of the live database. The call changed the
// objects that differ between snapshot and after; undo restores those of
// them that still differ from the snapshot, and those that differ from
// after as well changed again later.
func PlanUndo(call UndoCall, snapshot, after, live UndoObjects, replayed bool) UndoPlan {
	p := UndoPlan{Call: call, Replayed: replayed, Snapshot: snapshot, Live: live}
	s, a, l := snapshot.byKey(), after.byKey(), live.byKey()
	differs := func(x, y map[string]UndoObject, k string) bool {
		ox, inX := x[k]
		oy, inY := y[k]
		return inX != inY || inX && !ox.same(oy)
	}
	var keys []string
	seen := map[string]bool{}
	for _, list := range []UndoObjects{snapshot, after, live} {
		for _, o := range list {
			if k := o.key(); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	for _, k := range keys {
		changedByCall := !replayed || differs(s, a, k)
		if !changedByCall || !differs(s, l, k) {
			continue
		}
		d := ObjectDiff{}
		if o, ok := s[k]; ok {
			d.Snapshot, d.Name = &o, o.Name
		}
		if o, ok := l[k]; ok {
			d.Now, d.Name = &o, o.Name
		}
		p.Restore = append(p.Restore, d)
		if !replayed || differs(a, l, k) {
			p.Later = append(p.Later, d)
		}
	}
	p.LaterCalls = callsNaming(call.Later, p.Later)
	return p
}

// callsNaming are the calls whose SQL names one of the objects.
func callsNaming(calls []LoggedCall, objs []ObjectDiff) []LoggedCall {
	var out []LoggedCall
	for _, c := range calls {
		q := strings.ToLower(c.Query)
		for _, d := range objs {
			if strings.Contains(q, strings.ToLower(d.Name)) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Restores reports whether the plan restores the object called name.
func (p UndoPlan) Restores(name string) bool {
	for _, d := range p.Restore {
		if strings.EqualFold(d.Name, name) {
			return true
		}
	}
	return false
}

// Empty reports whether there is nothing to restore.
func (p UndoPlan) Empty() bool { return len(p.Restore) == 0 }

// RefuseLater is the refusal when later changes would be overwritten
// without the person's consent.
func (p UndoPlan) RefuseLater(flag string) error {
	if len(p.Later) == 0 {
		return nil
	}
	names := make([]string, len(p.Later))
	for i, d := range p.Later {
		names[i] = d.Name
	}
	why := "changed again after call #" + itoa(p.Call.ID)
	if !p.Replayed {
		why = "may have changed after call #" + itoa(p.Call.ID) + " (it could not be replayed to tell: " + p.ReplayProblem + ")"
	}
	return Errorf(ErrConflict, "nothing was restored: %s %s; undo would overwrite that. Check what changed (listed above), then run undo again with %s to overwrite it",
		QuoteList(names), why, flag)
}

// touched are the keys of the objects the plan's steps may drop or
// rewrite in objs: the ones it restores, and the triggers and indexes on
// a table it restores.
func (p UndoPlan) touched(objs UndoObjects) map[string]bool {
	out := map[string]bool{}
	for _, d := range p.Restore {
		out[strings.ToLower(d.Name)] = true
	}
	tables := map[string]bool{}
	for k := range out {
		tables[k] = true
	}
	for _, o := range objs {
		if (o.Type == "trigger" || o.Type == "index") && tables[strings.ToLower(o.Table)] {
			out[o.key()] = true
		}
	}
	return out
}

// ChangedSince names the objects the plan touches that differ in now from
// the live objects it was made from: the database changed under the plan.
func (p UndoPlan) ChangedSince(now UndoObjects) []string {
	was, is := p.Live.byKey(), now.byKey()
	keys := p.touched(p.Live)
	for k := range p.touched(now) {
		keys[k] = true
	}
	var out []string
	for _, k := range sortedKeys(keys) {
		a, inA := was[k]
		b, inB := is[k]
		if inA != inB || inA && !a.same(b) {
			out = append(out, nameOf(a, b))
		}
	}
	return out
}

// NotRestored names the objects that are wrong after the steps ran: a
// restored object that differs from the snapshot's, or any other object
// that differs from what it was before the steps (undo changes nothing
// else).
func (p UndoPlan) NotRestored(before, after UndoObjects) []string {
	want := before.byKey()
	snap := p.Snapshot.byKey()
	for _, d := range p.Restore {
		k := strings.ToLower(d.Name)
		if o, ok := snap[k]; ok {
			want[k] = o
		} else {
			delete(want, k)
		}
	}
	got := after.byKey()
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var out []string
	for _, k := range sortedKeys(keys) {
		a, inA := want[k]
		b, inB := got[k]
		if inA != inB || inA && !a.same(b) {
			out = append(out, nameOf(a, b))
		}
	}
	return out
}

func nameOf(a, b UndoObject) string {
	if a.Name != "" {
		return a.Name
	}
	return b.Name
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
