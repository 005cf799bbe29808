package domain

import (
	"fmt"
	"slices"
)

// sealWalk checks every checkpoint against the chain while a
// [ChainVerifier] walks the events, in one pass: each checkpoint is
// reduced to what the check needs (its seal content is hashed up front),
// sorted by the event it points at, and decided when the walk passes that
// event and the one after it. Cost: one SHA-256 per checkpoint and a few
// comparisons per event; memory: about 200 bytes per checkpoint, no
// summaries kept.
type sealWalk struct {
	cps      []cpRef         // sorted by last, then id
	index    map[int64]int32 // checkpoint id -> position in cps
	next     int             // first checkpoint whose head the walk has not reached
	awaiting []int           // checkpoints whose head is the last event seen
	ours     bool            // a marker or seal was seen
	on       bool            // checkpoints are checked at all
	started  bool

	sealed  int64
	badID   int64  // the first checkpoint found wrong
	badWhy  string // why; "" when none is
	lastSee int64  // the last event seen
}

// cpRef is what the walk keeps of one checkpoint.
type cpRef struct {
	id, last int64
	head     string
	seal     string // the content its seal must have
	ours     bool   // a marker or seal lies at or before its head
}

// The reasons a checkpoint breaks the chain.
const (
	reasonCPNotAnchored = "checkpoint %d points at event %d, which no longer has the hash it recorded (the checkpoint or the chain was changed outside the server)"
	reasonCPPastHead    = "checkpoint %d points at event %d, past the chain's last event %d (events were deleted or the checkpoint was changed outside the server)"
	reasonCPBroken      = "checkpoint %d does not match its seal (event %d): its summary or another field was changed outside the server"
	reasonCPMissing     = "checkpoint %d has no seal, although the chain shows this server wrote it (a marker or seal lies at or before its head, event %d): its seal was deleted or the checkpoint added outside the server"
	reasonSealOrphan    = "event %d seals checkpoint %d, which is not in memory_checkpoints (it was deleted outside the server)"
	reasonSealMoved     = "event %d seals checkpoint %d, which no longer points at the event before it (the checkpoint was changed outside the server)"
)

// CheckCheckpoints makes the walk check the checkpoints given with
// [ChainVerifier.Checkpoint] (none: a seal then names a missing one).
// Without it, and without any Checkpoint, only the events are checked.
func (v *ChainVerifier) CheckCheckpoints() { v.seals.on = true }

// Checkpoint adds c to the checkpoints the walk checks, and turns the check
// on. Add every checkpoint before the first event.
func (v *ChainVerifier) Checkpoint(c Checkpoint) {
	w := &v.seals
	w.on = true
	if w.index == nil {
		w.index = map[int64]int32{}
	}
	w.index[c.ID] = int32(len(w.cps))
	w.cps = append(w.cps, cpRef{id: c.ID, last: c.LastEventID, head: c.HeadHash, seal: c.SealContent()})
}

// start sorts the checkpoints and decides those anchored before event 1.
func (w *sealWalk) start() {
	if w.started || !w.on {
		return
	}
	w.started = true
	if !slices.IsSortedFunc(w.cps, cmpRef) {
		slices.SortStableFunc(w.cps, cmpRef)
		for i, c := range w.cps {
			w.index[c.id] = int32(i)
		}
	}
	for w.next < len(w.cps) && w.cps[w.next].last <= 0 {
		c := w.cps[w.next]
		if c.last < 0 || c.head != Genesis {
			w.fail(c.id, fmt.Sprintf(reasonCPNotAnchored, c.id, c.last))
		}
		w.awaiting = append(w.awaiting, w.next)
		w.next++
	}
}

func cmpRef(a, b cpRef) int {
	if a.last != b.last {
		return int(min(max(a.last-b.last, -1), 1))
	}
	return int(min(max(a.id-b.id, -1), 1))
}

// event takes the next good event of the chain.
func (w *sealWalk) event(e Event) {
	if !w.on {
		return
	}
	w.start()
	w.lastSee = e.ID
	for _, i := range w.awaiting {
		w.decide(i, &e)
	}
	w.awaiting = w.awaiting[:0]
	if MarksSealing(e) {
		w.ours = true
	}
	for w.next < len(w.cps) && w.cps[w.next].last == e.ID {
		c := &w.cps[w.next]
		c.ours = w.ours
		if e.Hash != c.head {
			w.fail(c.id, fmt.Sprintf(reasonCPNotAnchored, c.id, c.last))
		}
		w.awaiting = append(w.awaiting, w.next)
		w.next++
	}
	if id, ok := SealID(e); ok {
		i, known := w.index[id]
		switch {
		case !known:
			w.fail(id, fmt.Sprintf(reasonSealOrphan, e.ID, id))
		case w.cps[i].last+1 != e.ID:
			w.fail(id, fmt.Sprintf(reasonSealMoved, e.ID, id))
		}
	}
}

// decide settles checkpoint i with next, the event after its head (nil when
// its head is the chain's last event).
func (w *sealWalk) decide(i int, next *Event) {
	c := w.cps[i]
	var seal *Event
	if next != nil && IsSealOf(*next, c.id) {
		seal = next
	}
	cp := Checkpoint{ID: c.id, LastEventID: c.last}
	switch cov := coverageOf(cp, c.seal, seal, c.ours); cov {
	case Sealed:
		w.sealed++
	case SealBroken:
		w.fail(c.id, fmt.Sprintf(reasonCPBroken, c.id, seal.ID))
	case SealMissing:
		w.fail(c.id, fmt.Sprintf(reasonCPMissing, c.id, c.last))
	}
}

// coverageOf is [Checkpoint.Coverage] with c's seal content already known.
func coverageOf(c Checkpoint, content string, seal *Event, ours bool) Coverage {
	switch {
	case seal != nil && seal.ID == c.LastEventID+1 && seal.Content == content:
		return Sealed
	case seal != nil:
		return SealBroken
	case ours:
		return SealMissing
	}
	return Unsealed
}

// finish settles what the walk left: checkpoints whose head is the last
// good event have no seal after it; those past it point at no event. When
// the chain broke, checkpoints past the break are not judged.
func (w *sealWalk) finish(broken bool) {
	w.start()
	if broken || !w.on {
		return
	}
	for _, i := range w.awaiting {
		w.decide(i, nil)
	}
	w.awaiting = nil
	for ; w.next < len(w.cps); w.next++ {
		c := w.cps[w.next]
		w.fail(c.id, fmt.Sprintf(reasonCPPastHead, c.id, c.last, w.lastSee))
	}
}

// fail records the first wrong checkpoint.
func (w *sealWalk) fail(id int64, why string) {
	if w.badWhy == "" {
		w.badID, w.badWhy = id, why
	}
}
