package app

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// verified is the chain the resume context last verified whole (or
// extended): its result and the store's mark taken before that walk. When
// the store reports that nothing but this process's own memory and audit
// writes committed since the mark, the next resume checks only the events
// after the verified head; anything else, and the whole chain is walked
// again (docs/decisions.md#resume-verifies-what-changed).
type verified struct {
	// walk is held across one verification, so that callers at the same
	// time (a page load beside a resume) wait for one walk instead of
	// each making their own, whose marks would end each other's runs.
	walk sync.Mutex

	mu     sync.Mutex
	ok     bool // a good chain is remembered
	mark   ports.MemoryMark
	result domain.VerifyResult
	walked time.Time // when the last whole walk began
}

// verifyForResume is [Service.verify] for the resume context: a whole walk,
// or, when the store can vouch for every commit since the last one, a walk
// of the events appended since.
func (s *Service) verifyForResume(ctx context.Context) (domain.VerifyResult, error) {
	c, err := s.checkChain(ctx)
	return c.Result, err
}

// VerifiedChain is the chain as the resume context verifies it, for the
// web view's pages: cheap when only this process committed since the last
// verification, a whole walk otherwise. It is not a tool call and leaves
// no audit row (verify_chain is the audited whole walk).
func (s *Service) VerifiedChain(ctx context.Context) (ports.ChainCheck, error) {
	ctx, cancel := context.WithTimeout(ctx, s.limits.QueryTimeout)
	defer cancel()
	return s.checkChain(ctx)
}

var _ ports.ChainChecker = (*Service)(nil)

// checkChain verifies the chain from what is remembered when it can, and
// whole otherwise (verifyForResume).
func (s *Service) checkChain(ctx context.Context) (ports.ChainCheck, error) {
	s.chain.walk.Lock()
	defer s.chain.walk.Unlock()
	tail, canTell := s.d.Memory.(ports.MemoryTail)
	if !canTell {
		at := s.d.Clock.Now()
		r, err := s.verify(ctx, "")
		return ports.ChainCheck{Result: r, Whole: true, Walked: at, Checked: at}, err
	}
	s.chain.mu.Lock()
	last, had := s.chain.result, s.chain.ok
	mark, walked := s.chain.mark, s.chain.walked
	s.chain.mu.Unlock()
	if had {
		now := s.d.Clock.Now()
		r, next, ok, err := s.verifyTail(ctx, tail, mark, last)
		if err != nil {
			return ports.ChainCheck{}, err
		}
		if ok {
			s.remember(next, r, walked)
			return ports.ChainCheck{Result: r, Walked: walked, Checked: now}, nil
		}
	}
	at := s.d.Clock.Now()
	next, marked := tail.Mark()
	r, err := s.verify(ctx, "")
	if err != nil {
		return ports.ChainCheck{}, err
	}
	if marked {
		s.remember(next, r, at)
	}
	return ports.ChainCheck{Result: r, Whole: true, Walked: at, Checked: at}, nil
}

// verifyTail checks the events after last's head. ok is false when the
// store cannot vouch for the commits since mark, or the head event is no
// longer the one verified: the caller then walks the whole chain.
func (s *Service) verifyTail(ctx context.Context, tail ports.MemoryTail, mark ports.MemoryMark, last domain.VerifyResult) (domain.VerifyResult, ports.MemoryMark, bool, error) {
	v := domain.NewChainVerifierAfter(last.HeadID, last.HeadHash)
	headSeen := last.HeadID == 0
	added := int64(0)
	next, ok, err := tail.EventsAfter(ctx, mark, last.HeadID, func(e domain.Event) bool {
		if e.ID == last.HeadID {
			headSeen = e.Hash == last.HeadHash
			return headSeen
		}
		added++
		return v.Add(e)
	})
	if err != nil || !ok || !headSeen {
		return domain.VerifyResult{}, "", false, err
	}
	// Only this process appended since: one row per new event.
	r := v.Result(last.Events + added)
	r.Checkpoints, r.Sealed = last.Checkpoints, last.Sealed
	// With --chain-key-file the head must still be signed by the key, on
	// this path as on the whole walk (signature.go).
	if r, err = s.checkSignature(ctx, r); err != nil {
		return domain.VerifyResult{}, "", false, err
	}
	return r, next, true, nil
}

// remember keeps r as the verified chain at mark, when it is good.
// walked is when the whole walk it extends began.
func (s *Service) remember(mark ports.MemoryMark, r domain.VerifyResult, walked time.Time) {
	s.chain.mu.Lock()
	defer s.chain.mu.Unlock()
	s.chain.ok, s.chain.mark, s.chain.result, s.chain.walked = r.OK, mark, r, walked
}

// resumeState loads what the resume shows; after a good chain whose ids
// run 1..head with no row besides, the store need not count those again.
func (s *Service) resumeState(ctx context.Context, chain domain.VerifyResult, maxEvents int, exclude []string) (domain.ResumeState, error) {
	if tail, ok := s.d.Memory.(ports.MemoryTail); ok && chain.OK && chain.Events == chain.HeadID {
		return tail.ResumeFrom(ctx, maxEvents, exclude, chain.HeadID)
	}
	return s.d.Memory.Resume(ctx, maxEvents, exclude)
}
