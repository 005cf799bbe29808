package sqlite

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// memIndexSQL creates search_memory's index (domain.MemoryIndex): an FTS5
// table holding a copy of each event's indexed text under the event's id
// and of each checkpoint's summary under minus its id. It is kept apart
// from bootstrapSQL, which stays the reference's script byte for byte; a
// file the reference made gains the index at its first writable open.
// Package memory adds each event's and checkpoint's row in the
// transaction that stores it (adapters/sqlite/memory/index.go); the Store
// creates the index and rebuilds it here.
const memIndexSQL = `CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');`

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

// indexedTextSQL is domain.IndexedText in SQL, for the rebuild: one
// INSERT ... SELECT indexes the whole log without a round trip per event
// (twice as fast as appending each). memindex_test.go checks that both
// rules agree.
var indexedTextSQL = "CASE WHEN kind = " + sqlString(domain.SealKind) +
	" AND substr(content, 1, " + strconv.Itoa(len(domain.SealLead)) + ") = " + sqlString(domain.SealLead) +
	" AND instr(substr(content, " + strconv.Itoa(len(domain.SealLead)+1) + "), " + sqlString(domain.SealMark) + ") > 0" +
	" THEN '' WHEN kind = " + sqlString(domain.SealKind) + " AND content = " + sqlString(domain.SealMarkerContent) +
	" THEN '' ELSE content END"

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// rebuildIndex empties the index and indexes every event (by the rule an
// append uses, domain.IndexedText) and checkpoint again.
func rebuildIndex(ctx context.Context, c *sql.Conn) error {
	for _, q := range []string{
		"DELETE FROM memory_fts",
		"INSERT INTO memory_fts (rowid, text) SELECT id, " + indexedTextSQL + " FROM memory_events",
		"INSERT INTO memory_fts (rowid, text) SELECT -id, summary FROM memory_checkpoints",
	} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// IndexRebuilt reports whether opening the file built or rebuilt
// search_memory's index (a file made by the reference, or one whose index
// fell behind or was dropped from outside), for the startup log.
func (s *Store) IndexRebuilt() bool { return s.indexRebuilt }
