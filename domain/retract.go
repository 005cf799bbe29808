package domain

import (
	"strconv"
	"strings"
)

// Retractions (docs/decisions.md#retractions). A retraction withdraws one
// event from what the agent is shown without removing it from the chain:
// it is itself an event, of kind [RetractionKind], whose content names the
// retracted event and the reason ([RetractionContent]). Only the
// retract_event tool writes it, and only the rows of [RetractionsTable],
// which the server writes in the same transaction, make it count; an event
// of that kind from anywhere else is an ordinary event.
const (
	// RetractionKind is the kind of a retraction event; append_event
	// refuses it.
	RetractionKind = "retraction"
	// RetractionsTable maps each retracted event to its retraction. It is
	// a server table: the agent may read it but never write it.
	RetractionsTable = "memory_retractions"
	// retractionLead starts a retraction's content.
	retractionLead = "retracts event "
)

// Retraction is one row of [RetractionsTable]: event EventID withdrawn by
// event RetractionID, for Reason.
type Retraction struct {
	EventID, RetractionID int64
	Reason                string
}

// RetractionContent is the content of the event that retracts id:
// "retracts event <id>: <reason>".
func RetractionContent(id int64, reason string) string {
	return retractionLead + strconv.FormatInt(id, 10) + ": " + reason
}

// ParseRetraction reads a retraction event's content back: the retracted
// id and the reason. ok is false for an event that is not of
// [RetractionKind] or whose content is not [RetractionContent]'s.
func ParseRetraction(e Event) (r Retraction, ok bool) {
	if e.Kind != RetractionKind {
		return r, false
	}
	rest, ok := strings.CutPrefix(e.Content, retractionLead)
	if !ok {
		return r, false
	}
	num, reason, ok := strings.Cut(rest, ": ")
	id, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || id <= 0 || strconv.FormatInt(id, 10) != num || reason == "" {
		return Retraction{}, false
	}
	return Retraction{EventID: id, RetractionID: e.ID, Reason: reason}, true
}

// NewRetraction validates a retraction of target for reason and builds the
// event that follows the head (headID, headHash).
//
// Errors: [ErrInvalidArgument] for a blank reason, or a target that is a
// retraction, a checkpoint's seal or the seal marker (they are the
// server's bookkeeping, not memory).
func NewRetraction(headID int64, headHash, ts, session string, target Event, reason string) (Event, Retraction, error) {
	reason = StripSpace(reason)
	switch {
	case reason == "":
		return Event{}, Retraction{}, Errorf(ErrInvalidArgument, "reason must not be blank: say why event %d is withdrawn (it is kept in the chain)", target.ID)
	case target.Kind == RetractionKind:
		return Event{}, Retraction{}, Errorf(ErrInvalidArgument, "event %d is a retraction, which cannot be retracted; append a new event with %s if the retracted event still holds", target.ID, ToolAppendEvent)
	case MarksSealing(target):
		return Event{}, Retraction{}, Errorf(ErrInvalidArgument, "event %d is a checkpoint's seal or marker, which cannot be retracted; write a new %s instead", target.ID, ToolCheckpoint)
	}
	e, err := NewEvent(headID, headHash, ts, session, RetractionKind, RetractionContent(target.ID, reason))
	if err != nil {
		return Event{}, Retraction{}, err
	}
	return e, Retraction{EventID: target.ID, RetractionID: e.ID, Reason: reason}, nil
}

// RetractedLine is how a memory text says n retracted events were left
// out ("" for none).
func RetractedLine(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n) + " retracted left out"
}

// RenderRetracted is the event resource of a retracted event: its head
// line and why it was withdrawn, never its content.
func RenderRetracted(e Event, r Retraction) string {
	return "# event " + strconv.FormatInt(e.ID, 10) + " | " + e.TS + " | session " + e.Session + " | kind " + e.Kind + " | hash " + e.Hash +
		"\n# retracted by event " + strconv.FormatInt(r.RetractionID, 10) + ": " + r.Reason +
		"\n# its content is kept in the chain; " + ToolReadQuery + " on memory_events shows it"
}
