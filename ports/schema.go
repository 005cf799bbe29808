package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// SchemaReader answers questions about the database's schema. It only
// reads: list_tables, describe_table, get_schema, and the checks of
// create_view and search_text use it.
type SchemaReader interface {
	// Tables lists tables and views except internal (sqlite_*) and shadow
	// tables, ordered by type then name; with counts, tables carry row counts.
	Tables(ctx context.Context, counts bool) ([]domain.TableInfo, error)
	// Describe returns a table's or view's columns, keys and indexes.
	// Errors: [domain.ErrNotFound].
	Describe(ctx context.Context, table string) (domain.TableDescription, error)
	// Objects returns the stored SQL of every schema object except internal
	// and shadow objects, in get_schema order.
	Objects(ctx context.Context) ([]domain.SchemaObject, error)
	// Object returns the type and SQL of the object named name, ASCII
	// letter case ignored as SQLite ignores it.
	// Errors: [domain.ErrNotFound].
	Object(ctx context.Context, name string) (domain.SchemaObject, error)
}
