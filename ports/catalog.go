package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Catalog answers questions about the database's schema.
type Catalog interface {
	// Tables lists tables and views except internal (sqlite_*) and shadow
	// tables, ordered by type then name; with counts, tables carry row counts.
	Tables(ctx context.Context, counts bool) ([]domain.TableInfo, error)
	// Describe returns a table's or view's columns, keys and indexes.
	// Errors: [domain.ErrNotFound].
	Describe(ctx context.Context, table string) (domain.TableDescription, error)
	// Objects returns the stored SQL of every schema object except internal
	// and shadow objects, in get_schema order.
	Objects(ctx context.Context) ([]domain.SchemaObject, error)
	// Object returns the type and SQL of the object named exactly name.
	// Errors: [domain.ErrNotFound].
	Object(ctx context.Context, name string) (domain.SchemaObject, error)
	// ReplaceView creates or redefines a view with ddl, outside the agent
	// policy (the caller has validated it), in one transaction that also
	// stores audit's entry (see [AuditFunc]).
	ReplaceView(ctx context.Context, name, ddl string, replace bool, audit AuditFunc[string]) error
	// Candidates streams the search_text candidate rows (the key, then the
	// searched columns) under the read tier, the agent's WHERE text
	// included. It stops after q.Limit rows, whatever the WHERE text does,
	// and reports how many rows it produced and whether more existed.
	Candidates(ctx context.Context, q domain.CandidateQuery, row RowFunc) (n int, capped bool, err error)
}
