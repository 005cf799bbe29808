package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// RowFunc receives result rows one at a time while the statement steps:
// values are nil, int64, float64, string, [domain.Blob] or, from Read, a
// [domain.LongText]. The slice is reused between calls; copy what you keep.
// Returning false stops stepping (the rest of the result is never produced).
type RowFunc func(row []any) bool

// StatementRunner runs agent SQL under a tier of the statement policy. Every
// method compiles exactly one statement (comments and one trailing `;` may
// follow it), refuses bound parameters, and honours ctx's deadline by
// interrupting SQLite.
//
// Errors: [domain.ErrPolicy] (first denial reason), [domain.ErrTimeout],
// [domain.ErrInvalidArgument] (several statements, parameters),
// [domain.ErrGuard], [domain.ErrSQLite] (SQLite's own message).
type StatementRunner interface {
	// Read runs sql under the read tier. columns is called once with the
	// result column names before the first row.
	Read(ctx context.Context, sql string, columns func([]string), row RowFunc) error
	// Write runs sql under the write or destructive tier inside one
	// BEGIN IMMEDIATE transaction, streaming any result rows (RETURNING, or a
	// plain SELECT) to row. With req.MaxUpdateRows > 0 it rolls back when the
	// statement changed or overwrote more rows than that. req.Audit's entry,
	// when set, is inserted just before COMMIT, in the same transaction.
	// Writes of this process wait for each other (until ctx's deadline)
	// before they ask SQLite for the write lock.
	Write(ctx context.Context, req domain.WriteRequest, columns func([]string), row RowFunc) (domain.WriteResult, error)
	// Compile checks sql under tier without running it (EXPLAIN), so syntax,
	// missing objects and policy are reported before anything costly happens.
	// It returns what the statement would do.
	Compile(ctx context.Context, tier domain.Tier, sql string) (domain.Compiled, error)
}
