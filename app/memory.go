package app

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// AppendEvent adds one event to the hash chain. The server computes the
// hash; the agent only supplies content and kind.
func (s *Service) AppendEvent(ctx context.Context, r domain.AppendEventRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolAppendEvent, func(ctx context.Context, sp *span) (string, error) {
		content, redacted := s.redact(r.Content)
		kind := r.Kind
		if domain.LooksLikeSeal(kind, content) {
			return "", domain.Errorf(domain.ErrInvalidArgument, "events of kind 'checkpoint' that read like a checkpoint's seal are written only by the "+domain.ToolCheckpoint+" tool; use the "+domain.ToolCheckpoint+" tool, or another kind or wording")
		}
		if domain.NormalizeKind(kind) == domain.RetractionKind {
			return "", domain.Errorf(domain.ErrInvalidArgument, "events of kind '"+domain.RetractionKind+"' are written only by the "+domain.ToolRetractEvent+" tool; use it to withdraw an event, or pick another kind")
		}
		ts := domain.FormatTS(s.d.Clock.Now())
		describe := func(e domain.Event) {
			sp.setRows(1)
			sp.detail = domain.Detail{{Key: "event_id", Value: e.ID}, {Key: "kind", Value: e.Kind}}
			if redacted != nil {
				sp.detail = append(sp.detail, domain.Detail{{Key: "redacted", Value: redactedKinds(redacted)}}...)
			}
		}
		e, err := s.d.Memory.Append(ctx, func(id int64, hash string) (domain.Event, error) {
			return domain.NewEvent(id, hash, ts, sp.session, kind, content)
		}, sealWith(s.auditMemory, sp, describe))
		if err != nil {
			return "", err
		}
		describe(e)
		return redactionAnswer("ok: event "+itoa64(e.ID)+" appended (hash "+e.Hash[:12]+"...)", "content", redacted), nil
	})
}

// verify walks the whole chain, looking for expected (a head hash the user
// kept) when it is not "".
func (s *Service) verify(ctx context.Context, expected string) (domain.VerifyResult, error) {
	v := domain.NewChainVerifier()
	v.ExpectHead(expected)
	v.CheckCheckpoints()
	total, err := s.d.Memory.Events(ctx, v.Checkpoint, v.Add)
	if errors.Is(err, domain.ErrTimeout) && ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// "Add a LIMIT" cannot help here: the whole chain must be read.
		return domain.VerifyResult{}, domain.Errorf(domain.ErrTimeout,
			"verifying the memory chain took longer than %ss (%d events read) and was cancelled; start the server with a larger --query-timeout",
			domain.FormatSeconds(s.limits.QueryTimeout), total)
	}
	if err != nil {
		return domain.VerifyResult{}, err
	}
	return s.checkSignature(ctx, v.Result(total))
}

// VerifyChain recomputes every hash and reports the first break. With
// expectedHead, a head hash the user kept elsewhere, it also checks that
// the chain still holds it, which catches a rewrite that recomputed every
// hash.
func (s *Service) VerifyChain(ctx context.Context, r domain.VerifyChainRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolVerifyChain, func(ctx context.Context, sp *span) (string, error) {
		expectedHead := r.ExpectedHead
		var expected string
		if expectedHead != "" {
			sp.setQuery("expected_head=" + expectedHead)
			var err error
			if expected, err = domain.ParseHeadHash(expectedHead); err != nil {
				return "", err
			}
		}
		r, err := s.verify(ctx, expected)
		if err != nil {
			return "", err
		}
		sp.setRows(r.Events)
		sp.detail = domain.Detail{{Key: "ok", Value: r.OK}}
		if expected != "" {
			sp.detail = append(sp.detail, domain.Detail{{Key: "expected_head_id", Value: r.ExpectedID}}...)
		}
		return r.JSON(), nil
	})
}

// Checkpoint records a summary pinned to the current head of the chain.
func (s *Service) Checkpoint(ctx context.Context, r domain.CheckpointRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolCheckpoint, func(ctx context.Context, sp *span) (string, error) {
		summary, redacted := s.redact(r.Summary)
		ts := domain.FormatTS(s.d.Clock.Now())
		describe := func(c domain.Checkpoint) {
			sp.setRows(1)
			sp.detail = domain.Detail{{Key: "checkpoint_id", Value: c.ID}, {Key: "last_event_id", Value: c.LastEventID}}
			if redacted != nil {
				sp.detail = append(sp.detail, domain.Detail{{Key: "redacted", Value: redactedKinds(redacted)}}...)
			}
		}
		c, err := s.d.Memory.Checkpoint(ctx, func(id int64, hash string) (domain.Checkpoint, error) {
			return domain.NewCheckpoint(id, hash, ts, sp.session, summary)
		}, sealWith(s.auditMemory, sp, describe))
		if err != nil {
			return "", err
		}
		describe(c)
		return redactionAnswer("ok: checkpoint "+itoa64(c.ID)+" written at event "+itoa64(c.LastEventID), "summary", redacted), nil
	})
}

// GetResumeContext returns the latest checkpoint and the events after it,
// after verifying the whole chain.
func (s *Service) GetResumeContext(ctx context.Context, r domain.GetResumeContextRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolGetResumeContext, func(ctx context.Context, sp *span) (string, error) {
		return s.resume(ctx, sp, r)
	})
}

// resume renders the resume context for get_resume_context and for the
// resume resource and prompt, which audit it under their own names.
func (s *Service) resume(ctx context.Context, sp *span, r domain.GetResumeContextRequest) (string, error) {
	maxEvents, excludeKinds := r.MaxEvents, r.ExcludeKinds
	if err := domain.ArgMaxEvents.Check(s.limits, maxEvents); err != nil {
		return "", err
	}
	if err := domain.ArgResumeMaxBytes.Check(s.limits, r.MaxBytes); err != nil {
		return "", err
	}
	exclude := []string{}
	for _, k := range strings.Split(excludeKinds, ",") {
		if k = domain.StripSpace(k); k != "" {
			exclude = append(exclude, k)
		}
	}
	chain, err := s.verifyForResume(ctx) // verified.go
	if err != nil {
		return "", err
	}
	st, err := s.resumeState(ctx, chain, maxEvents, exclude)
	if err != nil {
		return "", err
	}
	out := domain.RenderResume(domain.ResumeInput{
		Checkpoint: st.Checkpoint, Anchored: st.Anchored, Coverage: st.Coverage, Chain: chain,
		Total: st.Total, Retracted: st.Retracted, Events: st.Events,
		MaxBytes: r.MaxBytes, MaxCellChars: s.limits.MaxCellChars,
	})
	var cp any
	if st.Checkpoint != nil {
		cp = st.Checkpoint.ID
	}
	sp.setRows(int64(out.Shown))
	sp.detail = domain.Detail{
		{Key: "checkpoint_id", Value: cp}, {Key: "chain_ok", Value: chain.OK},
		{Key: "excluded", Value: exclude}, {Key: "dropped", Value: out.Dropped},
	}
	if st.Retracted > 0 {
		sp.detail = append(sp.detail, domain.Detail{{Key: "retracted", Value: st.Retracted}}...)
	}
	return out.Text, nil
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
