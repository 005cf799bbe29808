package domain

import "strings"

// UndoTool is the tool column of an undo's query_log row. Undo is the
// person's command, not an agent tool, so no agent can call it; its row
// and its event say that it happened.
const UndoTool = "undo"

// UndoEventKind is the kind of the memory event an undo appends.
const UndoEventKind = "undo"

// Describe is the plan as the person reads it before saying yes: what is
// restored, and what later changes would be overwritten.
func (p UndoPlan) Describe() string {
	var b strings.Builder
	b.WriteString("undo of call #" + itoa(p.Call.ID) + " (" + p.Call.TS + " " + p.Call.Tool + ": " + oneLine(p.Call.Query) + ")\n")
	b.WriteString("from snapshot " + p.Call.Snapshot + "\n")
	if p.Empty() {
		b.WriteString("nothing to restore: every object the call changed is as it was before it\n")
		return b.String()
	}
	b.WriteString("restores " + itoa(int64(len(p.Restore))) + " object(s); memory_events and query_log are kept as they are:\n")
	for _, d := range p.Restore {
		b.WriteString("  " + d.String() + "\n")
	}
	if !p.Replayed {
		b.WriteString("the call could not be replayed on a copy of its snapshot (" + p.ReplayProblem + "),\n" +
			"so every object that differs from the snapshot is restored and counted as changed later\n")
	}
	if len(p.Later) > 0 {
		b.WriteString("changed again after the call, and overwritten by the undo:\n")
		for _, d := range p.Later {
			b.WriteString("  " + d.Type() + " " + Quote(d.Name) + "\n")
		}
		if len(p.LaterCalls) > 0 {
			b.WriteString("later calls that name them:\n")
			for _, c := range p.LaterCalls {
				b.WriteString("  " + c.String() + "\n")
			}
		}
	}
	return b.String()
}

// oneLine is SQL on one line, cut at 120 characters.
func oneLine(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > 120 {
		q = string(r[:119]) + "…"
	}
	return q
}

// restoredNames are the names of the objects restored.
func (p UndoPlan) restoredNames() []string {
	out := make([]string, len(p.Restore))
	for i, d := range p.Restore {
		out[i] = d.Name
	}
	return out
}

func (p UndoPlan) laterNames() []string {
	out := make([]string, len(p.Later))
	for i, d := range p.Later {
		out[i] = d.Name
	}
	return out
}

// EventContent is the text of the memory event that records the undo, so
// the next session knows the data went back.
func (p UndoPlan) EventContent() string {
	s := "undo of call #" + itoa(p.Call.ID) + " (" + p.Call.Tool + ": " + oneLine(p.Call.Query) + "): restored " +
		QuoteList(p.restoredNames()) + " from snapshot " + p.Call.Snapshot
	if len(p.Later) > 0 {
		s += "; overwrote later changes to " + QuoteList(p.laterNames())
	}
	return s
}

// AuditDetail is the undo's query_log detail: the call, the snapshot, the
// objects restored, the later changes overwritten, the memory event and
// the fresh snapshot taken before the undo ("" for none).
func (p UndoPlan) AuditDetail(eventID int64, fresh string) Detail {
	var f any
	if fresh != "" {
		f = fresh
	}
	return Detail{
		{Key: "call", Value: p.Call.ID}, {Key: "from_snapshot", Value: p.Call.Snapshot},
		{Key: "restored", Value: p.restoredNames()}, {Key: "overwrote_later", Value: p.laterNames()},
		{Key: "event_id", Value: eventID}, {Key: "fresh_snapshot", Value: f},
	}
}
