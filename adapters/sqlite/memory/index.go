package memory

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// search_memory's index (memory_fts, domain.MemoryIndex) takes each
// event's indexed text and each checkpoint's summary in the transaction
// that stores it. The Store creates the index at open and rebuilds it
// when it fell behind (adapters/sqlite/memindex.go).

// indexEvent adds e to the index, in the transaction that stores e. A
// file whose index was dropped from outside while the server runs keeps
// taking events: the index is rebuilt at the next open.
func indexEvent(ctx context.Context, c *sql.Conn, e domain.Event) error {
	_, err := c.ExecContext(ctx, "INSERT INTO memory_fts (rowid, text) VALUES (?, ?)", e.ID, domain.IndexedText(e))
	return skipMissingIndex(ctx, c, err)
}

// indexCheckpoint adds c's summary to the index, in its transaction.
func indexCheckpoint(ctx context.Context, x *sql.Conn, c domain.Checkpoint) error {
	_, err := x.ExecContext(ctx, "INSERT INTO memory_fts (rowid, text) VALUES (?, ?)", -c.ID, c.Summary)
	return skipMissingIndex(ctx, x, err)
}

// skipMissingIndex forgives a failed index insert when the file has no
// index (the schema on the insert's own connection says so); any other
// failure stands.
func skipMissingIndex(ctx context.Context, c *sql.Conn, err error) error {
	if err != nil && sqlite.IsStatementError(err) && sqlite.IndexMissing(ctx, c) {
		return nil
	}
	return err
}
