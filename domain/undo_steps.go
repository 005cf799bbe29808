package domain

import "strings"

// UndoOp is one kind of step of an undo.
type UndoOp int

const (
	// UndoDrop drops the live object.
	UndoDrop UndoOp = iota + 1
	// UndoCreate runs the object's stored definition (the snapshot's, or
	// the live one's for an object put back as it was).
	UndoCreate
	// UndoCopyRows copies a table's rows (a virtual table's: its shadow
	// tables' rows) and its AUTOINCREMENT counter from the snapshot,
	// after emptying the live table when Refill is set.
	UndoCopyRows
)

// UndoStep is one step of an undo, run in order inside one transaction.
type UndoStep struct {
	Op     UndoOp
	Object UndoObject
	// Refill marks a copy into a table that was kept (same definition):
	// its live rows are deleted first.
	Refill bool
}

// Steps orders the work of the plan so that no trigger fires and nothing
// refers to a missing object while it runs:
//
//  1. drop the live triggers being restored and every live trigger on a
//     table whose rows are rewritten (a trigger would fire on the copy);
//  2. drop the live views and indexes being restored, then the live
//     tables being rebuilt (a different definition, or one the call made);
//  3. create the snapshot's tables, copy their rows (and refill the tables
//     kept), then create indexes, views and triggers: the snapshot's for
//     the objects being restored, the live definition for the indexes and
//     triggers that went with a rebuilt table or were dropped in step 1
//     but are not being restored.
//
// Foreign keys are the adapter's (it turns their enforcement off, so no
// cascade fires); so is the copy of a virtual table's shadow tables.
func (p UndoPlan) Steps() []UndoStep {
	restore := map[string]ObjectDiff{}
	for _, d := range p.Restore {
		restore[strings.ToLower(d.Name)] = d
	}
	rebuild, refill := map[string]bool{}, map[string]bool{}
	for k, d := range restore {
		s, n := d.Snapshot, d.Now
		switch {
		case (s != nil && s.IsTable()) && (n != nil && n.IsTable()) && s.SQL == n.SQL && s.Virtual == n.Virtual:
			refill[k] = true
		case s != nil && s.IsTable() || n != nil && n.IsTable():
			rebuild[k] = true
		}
	}
	rewritten := func(table string) bool {
		t := strings.ToLower(table)
		return rebuild[t] || refill[t]
	}
	var steps []UndoStep
	add := func(op UndoOp, o UndoObject) { steps = append(steps, UndoStep{Op: op, Object: o}) }
	// The live objects kept as they are that must be dropped for the
	// copy and created again after it.
	var keep []UndoObject
	for _, o := range p.Live {
		_, restoring := restore[o.key()]
		if o.Type == "trigger" && (restoring || rewritten(o.Table)) {
			add(UndoDrop, o)
			if !restoring {
				keep = append(keep, o)
			}
		}
		if o.Type == "index" && !restoring && rebuild[strings.ToLower(o.Table)] && o.SQL != "" {
			keep = append(keep, o)
		}
	}
	for _, typ := range []string{"view", "index", "table"} {
		for _, o := range p.Live {
			d, restoring := restore[o.key()]
			if o.Type != typ || !restoring || d.Now == nil {
				continue
			}
			switch {
			case typ == "table" && !rebuild[o.key()]:
			case typ == "index" && rebuild[strings.ToLower(o.Table)]:
				// goes with its table
			default:
				add(UndoDrop, o)
			}
		}
	}
	exists := map[string]bool{} // the tables there once the tables are back
	for _, o := range p.Live {
		if o.IsTable() && !rebuild[o.key()] {
			exists[o.key()] = true
		}
	}
	for _, o := range p.Snapshot {
		if o.IsTable() && rebuild[o.key()] {
			add(UndoCreate, o)
			exists[o.key()] = true
		}
	}
	for _, o := range p.Snapshot {
		if o.IsTable() && (rebuild[o.key()] || refill[o.key()]) {
			steps = append(steps, UndoStep{Op: UndoCopyRows, Object: o, Refill: refill[o.key()]})
		}
	}
	for _, typ := range []string{"index", "view", "trigger"} {
		for _, o := range p.Snapshot {
			if _, restoring := restore[o.key()]; o.Type == typ && restoring && o.SQL != "" {
				add(UndoCreate, o)
			}
		}
		for _, o := range keep {
			if o.Type == typ && exists[strings.ToLower(o.Table)] {
				add(UndoCreate, o)
			}
		}
	}
	return steps
}
