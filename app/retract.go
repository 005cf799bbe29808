package app

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// RetractEvent withdraws one event from what the memory tools show by
// appending its retraction, an event of its own (docs/decisions.md#retractions):
// the retracted event stays in the chain, which verifies as before.
func (s *Service) RetractEvent(ctx context.Context, r domain.RetractEventRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolRetractEvent, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery("id=" + itoa64(int64(r.ID)))
		if r.ID <= 0 {
			return "", domain.Errorf(domain.ErrInvalidArgument, "id must be an event id (1 or more), got %d; "+domain.ToolSearchMemory+" or "+domain.ToolGetResumeContext+" shows the ids", r.ID)
		}
		reason, redacted := s.redact(r.Reason)
		if domain.StripSpace(reason) == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "reason must not be blank: say why event %d is withdrawn (it is kept in the chain)", r.ID)
		}
		ts := domain.FormatTS(s.d.Clock.Now())
		describe := func(x domain.Retraction) {
			sp.setRows(1)
			sp.detail = domain.Detail{{Key: "event_id", Value: x.RetractionID}, {Key: "retracted_id", Value: x.EventID}}
			if redacted != nil {
				sp.detail = append(sp.detail, domain.Detail{{Key: "redacted", Value: redactedKinds(redacted)}}...)
			}
		}
		x, appended, err := s.d.Memory.Retract(ctx, int64(r.ID), func(id int64, hash string, target domain.Event) (domain.Event, domain.Retraction, error) {
			return domain.NewRetraction(id, hash, ts, sp.session, target, reason)
		}, sealWith(s.auditMemory, sp, describe))
		if err != nil {
			return "", err
		}
		describe(x)
		if !appended {
			sp.setRows(0)
			return "ok: event " + itoa64(x.EventID) + " was already retracted by event " + itoa64(x.RetractionID) + " (" + x.Reason + "); nothing appended", nil
		}
		return redactionAnswer("ok: event "+itoa64(x.EventID)+" retracted by event "+itoa64(x.RetractionID)+"; it stays in the chain", "reason", redacted), nil
	})
}
