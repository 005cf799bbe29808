package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// ImpactMeter measures what one statement would do without changing
// anything: it runs the statement under tier in a transaction that is
// rolled back, and releases the write lock before it returns. It stops
// at ctx's deadline and then reports what it counted so far, with
// [domain.Impact.Partial] saying why. Errors are the statement's own (a
// policy refusal at run time, SQLite's error, [domain.ErrBusy]): the
// statement would fail the same way for real.
type ImpactMeter interface {
	Measure(ctx context.Context, tier domain.Tier, sql string) (domain.Impact, error)
}

// Confirmer asks a person whether a statement may run, and waits for the
// answer until ctx ends (an end is a [domain.OutcomeTimedOut]). It never
// holds the database's write lock while it waits.
type Confirmer interface {
	Confirm(ctx context.Context, q domain.Question) domain.Decision
}

// confirmerKey is the context key of [WithConfirmer].
type confirmerKey struct{}

// WithConfirmer returns ctx carrying c, the way to ask the person behind
// the call's own client; a driving adapter sets it only when its client
// can ask (MCP elicitation).
func WithConfirmer(ctx context.Context, c Confirmer) context.Context {
	return context.WithValue(ctx, confirmerKey{}, c)
}

// ConfirmerOf returns the call's client [Confirmer], or nil when its client
// cannot ask.
func ConfirmerOf(ctx context.Context) Confirmer {
	c, _ := ctx.Value(confirmerKey{}).(Confirmer)
	return c
}
