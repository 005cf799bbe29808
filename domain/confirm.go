package domain

import (
	"fmt"
	"strings"
	"time"
)

// ConfirmMode says which statements need a person's yes before they run
// (--confirm; docs/decisions.md#confirmation).
type ConfirmMode int

// The confirmation modes. The zero value is [ConfirmDestructive], the
// default.
const (
	// ConfirmDestructive asks before every destructive_query statement
	// that would change something.
	ConfirmDestructive ConfirmMode = iota
	// ConfirmWrites also asks before a write_query statement that updates
	// or deletes rows and before create_view replaces a view.
	ConfirmWrites
	// ConfirmOff never asks.
	ConfirmOff
)

// ConfirmFallback says what happens when a statement needs a yes and the
// client cannot ask its person (no elicitation): --confirm-fallback.
type ConfirmFallback int

// The fallbacks. The zero value is [FallbackSnapshot], the default.
const (
	// FallbackSnapshot runs the statement after the snapshot, as without
	// confirmation, and says in the answer that nobody was asked.
	FallbackSnapshot ConfirmFallback = iota
	// FallbackQueue puts the question in the approval queue and waits,
	// up to [ConfirmSettings.Wait], for a person to decide it there.
	FallbackQueue
	// FallbackRefuse runs nothing and answers that a person must approve.
	FallbackRefuse
)

// Bounds of --confirm-wait: a person needs time to read, and a call must
// still answer before any client we know of gives up on it (clients keep a
// long call alive with progress notifications; without a progress token,
// the shortest client timeouts we know are a few minutes).
const (
	DefaultConfirmWait = 5 * time.Minute
	MinConfirmWait     = 5 * time.Second
	MaxConfirmWait     = 30 * time.Minute
)

// ConfirmSettings are the confirmation settings.
type ConfirmSettings struct {
	Mode     ConfirmMode
	Fallback ConfirmFallback
	// Wait bounds how long a call waits for a person's answer; 0 means
	// [DefaultConfirmWait].
	Wait time.Duration
}

// WaitOrDefault is Wait, or the default when it is unset.
func (c ConfirmSettings) WaitOrDefault() time.Duration {
	if c.Wait <= 0 {
		return DefaultConfirmWait
	}
	return c.Wait
}

// ParseConfirmMode reads --confirm's value.
func ParseConfirmMode(s string) (ConfirmMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "destructive", "":
		return ConfirmDestructive, nil
	case "writes":
		return ConfirmWrites, nil
	case "off":
		return ConfirmOff, nil
	}
	return 0, fmt.Errorf("%q is not a confirmation mode; use destructive, writes or off", s)
}

// String is the mode as --confirm spells it.
func (m ConfirmMode) String() string {
	switch m {
	case ConfirmWrites:
		return "writes"
	case ConfirmOff:
		return "off"
	}
	return "destructive"
}

// fallbackNames spell the fallbacks as --confirm-fallback takes them.
var fallbackNames = [...]string{FallbackSnapshot: "snapshot", FallbackQueue: "queue", FallbackRefuse: "refuse"}

// ParseConfirmFallback reads --confirm-fallback's value ("" is the
// default).
func ParseConfirmFallback(s string) (ConfirmFallback, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return FallbackSnapshot, nil
	}
	for f, name := range fallbackNames {
		if v == name {
			return ConfirmFallback(f), nil
		}
	}
	return 0, fmt.Errorf("%q is not a confirmation fallback; use %s", s, strings.Join(fallbackNames[:], ", "))
}

// String is the fallback as --confirm-fallback spells it.
func (f ConfirmFallback) String() string {
	if f < 0 || int(f) >= len(fallbackNames) {
		return fallbackNames[FallbackSnapshot]
	}
	return fallbackNames[f]
}

// NeedsConfirmation is the rule of who must be asked: a destructive_query
// statement that would change something, under every mode but off; under
// [ConfirmWrites] also a write_query statement that updates or deletes
// rows (impact measured) and a create_view that replaces a view.
func (m ConfirmMode) NeedsConfirmation(tool string, im Impact) bool {
	switch {
	case m == ConfirmOff:
		return false
	case tool == ToolDestructiveQuery:
		return !im.Empty()
	case m != ConfirmWrites:
		return false
	case tool == ToolWriteQuery:
		return im.Overwrites()
	case tool == ToolCreateView:
		return !im.Empty()
	}
	return false
}

// Outcome is how a confirmation ended.
type Outcome string

// The outcomes. Only [OutcomeApproved] and [OutcomeUnasked] let the
// statement run.
const (
	OutcomeApproved  Outcome = "approved"
	OutcomeDeclined  Outcome = "declined"
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeTimedOut: nobody answered within --confirm-wait.
	OutcomeTimedOut Outcome = "timed out"
	// OutcomeInvalid: the answer did not match the form that was sent.
	OutcomeInvalid Outcome = "invalid answer"
	// OutcomeGone: the client disconnected or failed while asking.
	OutcomeGone Outcome = "client gone"
	// OutcomeRefused: nobody could be asked and --confirm-fallback refuse.
	OutcomeRefused Outcome = "refused"
	// OutcomeUnasked: nobody could be asked and --confirm-fallback
	// snapshot ran it anyway.
	OutcomeUnasked Outcome = "not asked"
	// OutcomeAwaiting: the question went to the client with the call's
	// result (an input request); the client's retry of the call brings
	// the answer, and this call runs nothing.
	OutcomeAwaiting Outcome = "asked, awaiting the retry"
)

// Runs reports whether the statement runs after this outcome.
func (o Outcome) Runs() bool { return o == OutcomeApproved || o == OutcomeUnasked }

// Who decided a confirmation.
const (
	DecidedByClient   = "client elicitation"
	DecidedByQueue    = "queue via CLI"
	DecidedByFallback = "fallback"
	DecidedByNobody   = "nobody"
)

// Decision is how a confirmation ended and who ended it.
type Decision struct {
	Outcome Outcome
	// By is one of the DecidedBy names.
	By string
	// Note says more: what the person wrote, which setting applied, why
	// the answer did not count.
	Note string
	// QueueID is the question's id in the approval queue, or 0.
	QueueID int64
}

// Detail is the decision as the call's audit row records it.
func (d Decision) Detail() Detail {
	out := Detail{{Key: "outcome", Value: string(d.Outcome)}, {Key: "by", Value: d.By}}
	if d.Note != "" {
		out = append(out, Field{Key: "note", Value: d.Note})
	}
	if d.QueueID != 0 {
		out = append(out, Field{Key: "queue_id", Value: d.QueueID})
	}
	return out
}

// Refusal is the error the agent gets when a decision stops the
// statement: what happened, that nothing ran, and what it can do next.
func (d Decision) Refusal(tool string) *Error {
	var what string
	switch d.Outcome {
	case OutcomeDeclined:
		what = "the person declined"
	case OutcomeCancelled:
		what = "the person cancelled the question"
	case OutcomeTimedOut:
		what = "nobody answered the question in time"
	case OutcomeInvalid:
		what = "the answer to the question did not match the form that was sent, so it counts as a no"
	case OutcomeGone:
		what = "the client could not ask the person"
	case OutcomeRefused:
		what = "this statement needs a person's approval and this client cannot ask (no elicitation)"
	case OutcomeAwaiting:
		return Errorf(ErrDeclined, "%s: the person is being asked through the client; nothing has run yet", tool)
	default:
		what = "the statement was not approved"
	}
	if d.Note != "" {
		what += " (" + d.Note + ")"
	}
	next := "nothing was run and nothing changed. Do not retry it as it is: tell the user what you wanted to do and why, or change the plan."
	if d.Outcome == OutcomeRefused || d.Outcome == OutcomeTimedOut {
		next = "nothing was run and nothing changed. Ask the user to approve it: start the server with --confirm-fallback queue and they can run `" +
			ConfirmCLI + " pending --db FILE` and `approve ID` in a terminal while the call waits, or use a client that supports elicitation."
	}
	return Errorf(ErrDeclined, "%s: %s; %s", tool, what, next)
}

// ConfirmCLI is the program's name in the commands questions suggest.
const ConfirmCLI = "mcp-sqlite-memory"
