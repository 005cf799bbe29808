package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// memIndexSQL creates search_memory's index (domain.MemoryIndex): an FTS5
// table holding a copy of each event's indexed text under the event's id
// and of each checkpoint's summary under minus its id. It is kept apart
// from bootstrapSQL, which stays the reference's script byte for byte; a
// file the reference made gains the index at its first writable open.
const memIndexSQL = `CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');`

// indexBatch is how many rows a rebuild reads before it writes them.
const indexBatch = 2000

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

// indexState is what the index holds against what it should hold: the
// count and largest id of the events and of the checkpoints, on each side.
type indexState struct {
	events, maxEvent, checkpoints, maxCheckpoint             int64
	idxEvents, idxMaxEvent, idxCheckpoints, idxMaxCheckpoint int64
}

func (s indexState) current() bool {
	return s.events == s.idxEvents && s.maxEvent == s.idxMaxEvent &&
		s.checkpoints == s.idxCheckpoints && s.maxCheckpoint == s.idxMaxCheckpoint
}

// readIndexState counts both sides. The index's side is read from its
// docsize table (one row per indexed text, keyed by rowid), a plain
// b-tree, so the comparison costs two scans of integer keys.
func readIndexState(ctx context.Context, c *sql.Conn) (indexState, error) {
	var s indexState
	err := c.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM memory_events), (SELECT coalesce(max(id), 0) FROM memory_events),
		(SELECT count(*) FROM memory_checkpoints), (SELECT coalesce(max(id), 0) FROM memory_checkpoints),
		(SELECT count(*) FROM memory_fts_docsize WHERE id > 0), (SELECT coalesce(max(id), 0) FROM memory_fts_docsize WHERE id > 0),
		(SELECT count(*) FROM memory_fts_docsize WHERE id < 0), (SELECT coalesce(-min(id), 0) FROM memory_fts_docsize WHERE id < 0)`).
		Scan(&s.events, &s.maxEvent, &s.checkpoints, &s.maxCheckpoint, &s.idxEvents, &s.idxMaxEvent, &s.idxCheckpoints, &s.idxMaxCheckpoint)
	return s, err
}

// syncIndex runs in bootstrap's transaction: it creates the index when it
// is missing and rebuilds it when it does not hold what the memory tables
// hold (another program appended, or it was dropped or emptied from
// outside). It reports whether it rebuilt.
func syncIndex(ctx context.Context, c *sql.Conn) (bool, error) {
	if _, err := c.ExecContext(ctx, memIndexSQL); err != nil {
		return false, err
	}
	st, err := readIndexState(ctx, c)
	if err != nil || st.current() {
		return false, err
	}
	return true, rebuildIndex(ctx, c)
}

// rebuildIndex empties the index and indexes every event and checkpoint
// again, with the same rule (domain.IndexedText) as an append.
func rebuildIndex(ctx context.Context, c *sql.Conn) error {
	if _, err := c.ExecContext(ctx, "DELETE FROM memory_fts"); err != nil {
		return err
	}
	for after := int64(-1); ; {
		var batch []domain.Event
		err := queryOn(ctx, c, func(r *sql.Rows) error {
			var e domain.Event
			if err := r.Scan(&e.ID, &e.Kind, &e.Content); err != nil {
				return err
			}
			batch = append(batch, e)
			return nil
		}, "SELECT id, kind, content FROM memory_events WHERE id > ? ORDER BY id LIMIT ?", after, indexBatch)
		if err != nil {
			return err
		}
		for _, e := range batch {
			if err := indexEvent(ctx, c, e); err != nil {
				return err
			}
			after = e.ID
		}
		if len(batch) < indexBatch {
			break
		}
	}
	_, err := c.ExecContext(ctx, "INSERT INTO memory_fts (rowid, text) SELECT -id, summary FROM memory_checkpoints")
	return err
}

// IndexRebuilt reports whether opening the file built or rebuilt
// search_memory's index (a file made by the reference, or one whose index
// fell behind or was dropped from outside), for the startup log.
func (s *Store) IndexRebuilt() bool { return s.indexRebuilt }
