package memory

import (
	"context"
	"database/sql"
	"strings"

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
	return skipMissingIndex(err)
}

// indexCheckpoint adds c's summary to the index, in its transaction.
func indexCheckpoint(ctx context.Context, x *sql.Conn, c domain.Checkpoint) error {
	_, err := x.ExecContext(ctx, "INSERT INTO memory_fts (rowid, text) VALUES (?, ?)", -c.ID, c.Summary)
	return skipMissingIndex(err)
}

func skipMissingIndex(err error) error {
	if err != nil && strings.Contains(err.Error(), "no such table: memory_fts") {
		return nil
	}
	return err
}
