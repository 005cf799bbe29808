package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// provenanceKey is the context key of a call's provenance.
type provenanceKey struct{}

// WithProvenance returns ctx carrying where the call comes from: the MCP
// client, its transport and HTTP session, or the command line. A driving
// adapter sets it on every call, as it sets the session id
// ([WithSession]); the memory store records it beside each event the call
// appends (docs/decisions.md#provenance).
func WithProvenance(ctx context.Context, p domain.Provenance) context.Context {
	return context.WithValue(ctx, provenanceKey{}, p)
}

// ProvenanceFrom returns the provenance WithProvenance put in ctx, zero
// when there is none.
func ProvenanceFrom(ctx context.Context) domain.Provenance {
	p, _ := ctx.Value(provenanceKey{}).(domain.Provenance)
	return p
}
