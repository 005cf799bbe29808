package fake

import (
	"context"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Impact is a [ports.ImpactMeter] that answers Impact or Err, and keeps
// the statements it was asked to measure.
type Impact struct {
	Impact domain.Impact
	Err    error
	calls
}

var _ ports.ImpactMeter = (*Impact)(nil)

// Measure records the call and answers Impact or Err.
func (m *Impact) Measure(ctx context.Context, tier domain.Tier, sql string) (domain.Impact, error) {
	m.add(ctx, Call{Method: "Measure", SQL: sql, Tier: tier})
	if m.Err != nil {
		return domain.Impact{}, m.Err
	}
	return m.Impact, nil
}

// Confirmer is a [ports.Confirmer]: it answers Decision, or, with Wait
// set, waits until ctx ends and answers a timeout, as a person who never
// answers; ConfirmFn replaces it. It keeps the questions.
type Confirmer struct {
	Decision  domain.Decision
	Wait      bool
	ConfirmFn func(ctx context.Context, q domain.Question) domain.Decision

	mu        sync.Mutex
	questions []domain.Question
}

var _ ports.Confirmer = (*Confirmer)(nil)

// Confirm records q and answers.
func (c *Confirmer) Confirm(ctx context.Context, q domain.Question) domain.Decision {
	c.mu.Lock()
	c.questions = append(c.questions, q)
	c.mu.Unlock()
	switch {
	case c.ConfirmFn != nil:
		return c.ConfirmFn(ctx, q)
	case c.Wait:
		<-ctx.Done()
		return domain.Decision{Outcome: domain.OutcomeTimedOut}
	}
	return c.Decision
}

// Questions returns the questions asked so far.
func (c *Confirmer) Questions() []domain.Question {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]domain.Question(nil), c.questions...)
}
