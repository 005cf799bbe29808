package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// MemoryRecall reads the memory back: search_memory from the index, one
// event by id, completion values; on the store's read connections (no
// agent SQL runs here).
type MemoryRecall struct {
	db *Store
}

var _ ports.MemoryRecall = (*MemoryRecall)(nil)

// NewMemoryRecall returns the memory searcher of db.
func NewMemoryRecall(db *Store) *MemoryRecall { return &MemoryRecall{db: db} }

// snippetTokens is how many tokens a snippet shows around the match.
const snippetTokens = 24

// hitsSQL ranks the matches: BM25 first (smaller is better), then the
// newer row. The filters read the event's or checkpoint's own row.
const hitsSQL = `SELECT f.rowid, coalesce(e.ts, c.ts) AS ts, coalesce(e.kind, 'checkpoint') AS kind, coalesce(e.session, c.session) AS session
FROM memory_fts f
LEFT JOIN memory_events e ON e.id = f.rowid
LEFT JOIN memory_checkpoints c ON c.id = -f.rowid
WHERE memory_fts MATCH ?`

// Search runs q in one read transaction and calls hit for each result,
// best first; it reports whether more matched than q.Limit, and how many
// events the index has not taken in yet (appended by another program
// since this server opened the file).
func (m *MemoryRecall) Search(ctx context.Context, q domain.MemorySearch, hit func(domain.MemoryHit)) (more bool, lag int64, err error) {
	if err := m.db.checkImmutable(); err != nil {
		return false, 0, err
	}
	conn, err := m.db.readers.Conn(ctx)
	if err != nil {
		return false, 0, m.db.connError(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return false, 0, m.db.connError(ctx, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memory_fts_docsize'").Scan(&n); err != nil {
		return false, 0, m.db.connError(ctx, err)
	}
	if n == 0 {
		return false, 0, domain.Errorf(domain.ErrUnavailable,
			"this file has no search index yet: a writable server builds it when it opens the file; open it once without --read-only, or use search_text on memory_events")
	}
	st, err := readIndexState(ctx, conn)
	if err != nil {
		return false, 0, m.db.connError(ctx, err)
	}
	lag = max(0, st.maxEvent-st.idxMaxEvent)

	where, args := hitsSQL, []any{q.Query.Match}
	if len(q.Kinds) > 0 {
		where += " AND coalesce(e.kind, 'checkpoint') IN (?" + strings.Repeat(", ?", len(q.Kinds)-1) + ")"
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	if q.Session != "" {
		where += " AND coalesce(e.session, c.session) = ?"
		args = append(args, q.Session)
	}
	if q.Since != "" {
		where += " AND coalesce(e.ts, c.ts) >= ?"
		args = append(args, q.Since)
	}
	where += " ORDER BY f.rank, ts DESC, abs(f.rowid) DESC LIMIT ?"
	args = append(args, q.Limit+1)
	var hits []domain.MemoryHit
	var rowids []int64
	err = queryOn(ctx, conn, func(r *sql.Rows) error {
		var h domain.MemoryHit
		var rowid int64
		var ts, kind, session sql.NullString
		if err := r.Scan(&rowid, &ts, &kind, &session); err != nil {
			return err
		}
		h.ID, h.Source = rowid, domain.SourceEvent
		if rowid < 0 {
			h.ID, h.Source = -rowid, domain.SourceCheckpoint
		}
		h.TS, h.Kind, h.Session = ts.String, kind.String, session.String
		hits = append(hits, h)
		rowids = append(rowids, rowid)
		return nil
	}, where, args...)
	if err != nil {
		return false, lag, m.searchError(ctx, err)
	}
	if len(hits) > q.Limit {
		hits, more = hits[:q.Limit], true
	}
	// Snippets only for the hits shown: snippet() reads the whole text.
	for i := range hits {
		err := conn.QueryRowContext(ctx, "SELECT snippet(memory_fts, 0, '[', ']', '...', ?) FROM memory_fts WHERE memory_fts MATCH ? AND rowid = ?",
			snippetTokens, q.Query.Match, rowids[i]).Scan(&hits[i].Snippet)
		if err != nil {
			return false, lag, m.searchError(ctx, err)
		}
		hit(hits[i])
	}
	return more, lag, nil
}

// searchError translates a failed search. The query is built from quoted
// terms (domain.ParseMemoryQuery), so FTS5 should never find it
// malformed; if it does, the agent is told to simplify it.
func (m *MemoryRecall) searchError(ctx context.Context, err error) error {
	if ctx.Err() == nil && strings.Contains(err.Error(), "fts5:") {
		return domain.Errorf(domain.ErrInvalidArgument, "the search index could not read the query (%s); use plain words", m.db.scrub(err.Error()))
	}
	return m.db.connError(ctx, err)
}

// Event returns one event by id.
func (m *MemoryRecall) Event(ctx context.Context, id int64) (domain.Event, error) {
	if err := m.db.checkImmutable(); err != nil {
		return domain.Event{}, err
	}
	var e domain.Event
	err := m.db.readers.QueryRowContext(ctx, "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events WHERE id = ?", id).
		Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash)
	if err == sql.ErrNoRows {
		return e, domain.Errorf(domain.ErrNotFound, "there is no event %d; read_query on memory_events shows the ids that exist", id)
	}
	if err != nil {
		return e, m.db.connError(ctx, err)
	}
	return e, nil
}

// Values returns the distinct kinds or sessions starting with prefix
// among the newest domain.RecallScan events: bounded by that scan, never
// by the log's length.
func (m *MemoryRecall) Values(ctx context.Context, field domain.RecallField, prefix string, max int) ([]string, bool, error) {
	if err := m.db.checkImmutable(); err != nil {
		return nil, false, err
	}
	col := "kind"
	if field == domain.RecallSession {
		col = "session"
	}
	var out []string
	conn, err := m.db.readers.Conn(ctx)
	if err != nil {
		return nil, false, m.db.connError(ctx, err)
	}
	defer conn.Close()
	err = queryOn(ctx, conn, func(r *sql.Rows) error {
		var v string
		if err := r.Scan(&v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, "SELECT DISTINCT "+col+" FROM (SELECT "+col+" FROM memory_events ORDER BY id DESC LIMIT ?) WHERE substr(CAST("+col+" AS BLOB), 1, ?) = CAST(? AS BLOB) ORDER BY 1 LIMIT ?",
		domain.RecallScan, len(prefix), prefix, max+1)
	if err != nil {
		return nil, false, m.db.connError(ctx, err)
	}
	if len(out) > max {
		return out[:max], true, nil
	}
	return out, false, nil
}
