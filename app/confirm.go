package app

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// The person in the loop (docs/decisions.md#confirmation): before a
// statement the settings say a person must approve, the server measures
// what it would do (a dry run, rolled back, the write lock released),
// builds the question from that, and asks: the call's own client when it
// can (ports.ConfirmerOf), else the fallback --confirm-fallback names.
// Waiting for the answer holds neither the write lock nor one of the
// --max-concurrent-calls slots.

// measure runs the statement's dry run; without an impact meter (a
// read-only server has none) it reports nothing measured.
func (s *Service) measure(ctx context.Context, tier domain.Tier, query string) (domain.Impact, error) {
	if s.d.Impact == nil {
		return domain.Impact{RowsAffected: -1, Partial: "this server cannot measure statements"}, nil
	}
	return s.d.Impact.Measure(ctx, tier, query)
}

// question is what the person is asked about query.
func (s *Service) question(tool, query, reason string, im domain.Impact, snapshot bool) domain.Question {
	q := domain.Question{Tool: tool, SQL: query, Reason: reason, Impact: im}
	db := s.confirmDB
	if db == "" {
		db = "FILE"
	}
	switch {
	case snapshot && s.limits.Snapshots > 0 && s.d.Snapshots != nil:
		q.Snapshot = "Before it runs, the server writes a snapshot of the whole database (the latest " + itoa64(int64(s.limits.Snapshots)) + " are kept)."
		q.Undo = "To undo it afterwards: " + domain.ConfirmCLI + " undo --db " + db + " (the latest destructive call; pass a call id for another), " +
			"or restore the snapshot with " + domain.ConfirmCLI + " snapshots restore NAME --over --db " + db + " (which rewinds everything since)."
	case snapshot:
		q.Snapshot = "Snapshots are off (--snapshots 0): nothing can undo this."
	default:
		q.Snapshot = tool + " takes no snapshot; nothing can undo this but a snapshot taken earlier."
	}
	return q
}

// confirm decides whether the statement may run: asked says whether a
// person had to be asked (or would have been), and d how it ended. The
// call's audit row records d either way.
func (s *Service) confirm(call context.Context, sp *span, q domain.Question) (d domain.Decision, asked bool) {
	if !s.confirmSet.Mode.NeedsConfirmation(q.Tool, q.Impact) {
		note := "nothing would change"
		if s.confirmSet.Mode == domain.ConfirmOff {
			note = "--confirm off"
		} else if q.Tool != domain.ToolDestructiveQuery && s.confirmSet.Mode != domain.ConfirmWrites {
			note = "--confirm " + s.confirmSet.Mode.String() + " does not ask about " + q.Tool
		} else if !q.Impact.Empty() {
			note = "it only adds"
		}
		d = domain.Decision{Outcome: domain.OutcomeUnasked, By: domain.DecidedByNobody, Note: note}
		sp.confirmed(d, q.Impact, false)
		return d, false
	}
	asker, by := ports.ConfirmerOf(call), domain.DecidedByClient
	if asker == nil {
		switch s.confirmSet.Fallback {
		case domain.FallbackSnapshot:
			d = domain.Decision{Outcome: domain.OutcomeUnasked, By: domain.DecidedByFallback,
				Note: "the client cannot ask (no elicitation) and --confirm-fallback is snapshot"}
			sp.confirmed(d, q.Impact, true)
			return d, true
		case domain.FallbackQueue:
			asker, by = s.d.Queue, domain.DecidedByQueue
		}
		if asker == nil {
			d = domain.Decision{Outcome: domain.OutcomeRefused, By: domain.DecidedByFallback, Note: "--confirm-fallback " + s.confirmSet.Fallback.String()}
			sp.confirmed(d, q.Impact, true)
			return d, true
		}
	}
	q.Session = sp.session
	wait := s.confirmSet.WaitOrDefault()
	ctx, cancel := context.WithTimeout(call, wait)
	defer cancel()
	msg := "waiting up to " + domain.FormatSeconds(wait) + "s for a person to approve the statement"
	if by == domain.DecidedByQueue {
		msg += " (" + domain.ConfirmCLI + " pending, then approve ID or deny ID)"
	}
	stop := during(call, 0, 3, msg)
	err := s.unslotted(call, sp, func() { d = asker.Confirm(ctx, q) })
	stop()
	if d.By == "" {
		d.By = by
	}
	if d.Outcome == "" {
		d.Outcome = domain.OutcomeTimedOut
	}
	if err != nil && d.Outcome.Runs() {
		// Approved, but the call could not get a slot back in time.
		d = domain.Decision{Outcome: domain.OutcomeTimedOut, By: d.By, Note: "approved, but the server was too busy to run it afterwards", QueueID: d.QueueID}
	}
	sp.confirmed(d, q.Impact, true)
	return d, true
}

// unslotted runs wait without the call's slot, then takes one back: a
// call waiting for a person must not starve the others.
func (s *Service) unslotted(ctx context.Context, sp *span, wait func()) error {
	if sp.held {
		s.calls.release()
		sp.held = false
	}
	wait()
	actx, cancel := context.WithTimeout(ctx, s.limits.QueryTimeout)
	defer cancel()
	if err := s.calls.acquire(actx, domain.FormatSeconds(s.limits.QueryTimeout)); err != nil {
		return err
	}
	sp.held = true
	return nil
}

// confirmed records the decision, and the impact it was made on, in the
// call's audit row, which keeps them even when the call then fails.
func (sp *span) confirmed(d domain.Decision, im domain.Impact, asked bool) {
	c := append(domain.Detail{{Key: "asked", Value: asked}}, d.Detail()...)
	sp.confirm = append(c, domain.Field{Key: "impact", Value: im.Detail()})
}
