package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// ViewWriter stores create_view's views. It is the one schema change made
// outside the agent's statement policy (the core has validated the view's
// name and compiled its SELECT under the read tier first), so it is a port
// of its own: whoever holds a [SchemaReader] cannot change the schema.
type ViewWriter interface {
	// ReplaceView creates v, or redefines it when replace is set, in one
	// transaction that also stores audit's entry (see [AuditFunc]); the
	// store decides how v is written down as SQL. A view that has
	// triggers, or whose new definition would break it or another view,
	// is left as it was.
	//
	// Errors: [domain.ErrConflict] (triggers on the view, a definition that
	// does not work), [domain.ErrBusy], [domain.ErrTimeout].
	ReplaceView(ctx context.Context, v domain.View, replace bool, audit AuditFunc[string]) error
}
