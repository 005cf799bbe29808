// Package engine is the SQLite runtime under the SQLite adapter: the one
// package of the module that imports unsafe, modernc.org/libc and
// modernc.org/sqlite/lib (test/arch keeps that fence).
//
// It offers, on the raw connection behind a modernc.org/sqlite connection
// ([Open], from the value sql.Conn.Raw passes):
//
//   - statements stepped through SQLite's C API ([Handle.Prepare],
//     [Stmt.Step], [Stmt.Row]), which keep every value as SQLite stores it;
//   - the program check: [Stmt.FirstWrite] reads the compiled program,
//     in SQLite's memory where it can and through EXPLAIN otherwise;
//   - the bounded built-ins and virtual-table work ([Handle.RegisterBounded]):
//     Go ports of the built-ins whose one call outruns the deadline, bounds
//     on the JSON path lists, json_patch, FTS5's auxiliaries, queries,
//     tokenizers and indexed rows (docs/decisions.md#single-steps);
//   - SQLite's process-wide heap limits ([SetHeapLimits]).
//
// Package sqlite above it keeps the store, the services, the agent call
// and the UPDATE guard, in terms of this API.
package engine
