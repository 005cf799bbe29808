// Package recall reads the memory back for the SQLite adapter:
// search_memory over the memory index, and the events, kinds and sessions
// that resources and completions ask for.
package recall

import (
	"context"
	"database/sql"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Searcher reads the memory back: search_memory from the index, one
// event by id, completion values; on the store's read connections (no
// agent SQL runs here).
type Searcher struct {
	db *sqlite.Store
}

var _ ports.MemoryRecall = (*Searcher)(nil)

// New returns the memory searcher of db.
func New(db *sqlite.Store) *Searcher { return &Searcher{db: db} }

// Search runs q in one read transaction and calls hit for each result,
// best first: the rows holding every term, then those holding some, each
// ranked by BM25 and then recency. It reports whether more matched than
// q.Limit, how many events the index has not taken in yet (appended by
// another program since this server opened the file), and how many of the
// matching events were ranked (domain.MaxRankedMatches at most).
func (m *Searcher) Search(ctx context.Context, q domain.MemorySearch, hit func(domain.MemoryHit)) (domain.MemorySearchResult, error) {
	var res domain.MemorySearchResult
	if err := m.db.CheckFile(); err != nil {
		return res, err
	}
	conn, err := m.db.Readers().Conn(ctx)
	if err != nil {
		return res, m.db.ConnError(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return res, m.db.ConnError(ctx, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memory_fts_docsize'").Scan(&n); err != nil {
		return res, m.db.ConnError(ctx, err)
	}
	if n == 0 {
		return res, domain.Errorf(domain.ErrUnavailable,
			"this file has no search index yet: a writable server builds it when it opens the file; open it once without --read-only, or use "+domain.ToolSearchText+" on memory_events")
	}
	lag, err := sqlite.IndexLag(ctx, conn)
	if err != nil {
		return res, m.db.ConnError(ctx, err)
	}
	res.Lag = lag
	sides, err := sqlite.HasRetractions(ctx, conn)
	if err != nil {
		return res, m.db.ConnError(ctx, err)
	}

	exprs := []string{q.Query.All}
	if q.Query.Match != q.Query.All {
		exprs = append(exprs, q.Query.Match)
	}
	var hits []domain.MemoryHit
	var rowids []int64
	for _, expr := range exprs {
		if len(hits) > q.Limit {
			break
		}
		w, err := matchWindow(ctx, conn, expr)
		if err != nil {
			return res, m.searchError(ctx, err)
		}
		res.Matched, res.Ranked, res.Unranked = w.events, w.events, w.floor > 0
		err = rankedHits(ctx, conn, q, sides, expr, w, rowids, q.Limit+1-len(hits), func(h domain.MemoryHit, rowid int64) {
			hits, rowids = append(hits, h), append(rowids, rowid)
		})
		if err != nil {
			return res, m.searchError(ctx, err)
		}
	}
	if sides {
		if res.Retracted, err = retractedMatches(ctx, conn, q.Query); err != nil {
			return res, m.searchError(ctx, err)
		}
	}
	if len(hits) > q.Limit {
		hits, rowids, res.More = hits[:q.Limit], rowids[:q.Limit], true
	}
	if err := snippets(ctx, conn, q.Query, hits, rowids); err != nil {
		return res, m.searchError(ctx, err)
	}
	for _, h := range hits {
		hit(h)
	}
	return res, nil
}

// window is what one walk of an expression's newest matches found: the
// events among them (domain.MaxRankedMatches at most), whether a
// checkpoint matches, and floor, the smallest event id of the newest
// domain.MaxRankedMatches when more events match (0 when every match is
// ranked).
type window struct {
	events      int64
	checkpoints bool
	floor       int64
}

// windowSQL reads the newest domain.MaxRankedMatches matches of an
// expression in descending rowid order (which FTS5 serves without
// sorting, stopping there): how many, the oldest of them, and whether a
// checkpoint matches (the checkpoints' rowids are negative: a bounded
// walk of the few).
const windowSQL = `SELECT count(*), coalesce(min(rowid), 0),
EXISTS (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ?1 AND rowid < 0)
FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?1 AND rowid > 0 ORDER BY rowid DESC LIMIT ?2)`

// matchWindow finds the ranking's window of expr without walking every
// match: the newest domain.MaxRankedMatches events, and, when that many
// match, whether an older one does too (one step of the walk below the
// oldest). More matches than that are not counted.
func matchWindow(ctx context.Context, conn *sql.Conn, expr string) (window, error) {
	var w window
	var oldest int64
	if err := conn.QueryRowContext(ctx, windowSQL, expr, domain.MaxRankedMatches).Scan(&w.events, &oldest, &w.checkpoints); err != nil {
		return w, err
	}
	if w.events < domain.MaxRankedMatches {
		return w, nil
	}
	var older bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? AND rowid > 0 AND rowid < ?)", expr, oldest).Scan(&older); err != nil {
		return w, err
	}
	if older {
		w.floor = oldest
	}
	return w, nil
}

// retractedMatches counts the retracted events that q.Match matches (all
// of them, not only the ranked ones). A plain query seeks each
// retraction (rowid IN (...)); a prefix query walks its matches over the
// retractions' rowid range once, since FTS5 would expand the prefix again
// for each seek (+rowid IN (...) filters the walk, it is no constraint
// FTS5 is offered).
func retractedMatches(ctx context.Context, conn *sql.Conn, q domain.MemoryQuery) (int64, error) {
	query := "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ? AND rowid IN (SELECT event_id FROM memory_retractions)"
	if q.Prefix {
		query = `SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?
AND rowid BETWEEN (SELECT coalesce(min(event_id), 1) FROM memory_retractions) AND (SELECT coalesce(max(event_id), 0) FROM memory_retractions)
AND +rowid IN (SELECT event_id FROM memory_retractions)`
	}
	var n int64
	err := conn.QueryRowContext(ctx, query, q.Match).Scan(&n)
	return n, err
}

// searchError translates a failed search. The query is built from quoted
// terms (domain.ParseMemoryQuery), so FTS5 should never find it
// malformed; if it does, the agent is told to simplify it. The search runs
// in one read transaction after the index was found present, so a
// statement SQLite refuses there (SQLITE_ERROR) is FTS5 refusing the
// query, or a bounded function (adapters/sqlite/engine) refusing a row's
// cost; SQLite's message says which.
func (m *Searcher) searchError(ctx context.Context, err error) error {
	if ctx.Err() == nil && sqlite.IsStatementError(err) {
		return domain.Errorf(domain.ErrInvalidArgument, "SQLite refused the search (%s); use plain words (a phrase in quotes, * only at the end of a word), or "+
			domain.ToolSearchText+" on memory_events", m.db.Scrub(err.Error()))
	}
	return m.db.ConnError(ctx, err)
}

// Event returns one event by id.
func (m *Searcher) Event(ctx context.Context, id int64) (domain.Event, error) {
	if err := m.db.CheckFile(); err != nil {
		return domain.Event{}, err
	}
	var e domain.Event
	err := m.db.Readers().QueryRowContext(ctx, "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events WHERE id = ?", id).
		Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash)
	if err == sql.ErrNoRows {
		return e, domain.Errorf(domain.ErrNotFound, "there is no event %d; "+domain.ToolReadQuery+" on memory_events shows the ids that exist", id)
	}
	if err != nil {
		return e, m.db.ConnError(ctx, err)
	}
	return e, nil
}

// Values returns the distinct kinds or sessions starting with prefix
// among the newest domain.RecallScan events: bounded by that scan, never
// by the log's length.
func (m *Searcher) Values(ctx context.Context, field domain.RecallField, prefix string, max int) ([]string, bool, error) {
	if err := m.db.CheckFile(); err != nil {
		return nil, false, err
	}
	col := "kind"
	if field == domain.RecallSession {
		col = "session"
	}
	var out []string
	conn, err := m.db.Readers().Conn(ctx)
	if err != nil {
		return nil, false, m.db.ConnError(ctx, err)
	}
	defer conn.Close()
	err = sqlite.QueryOn(ctx, conn, func(r *sql.Rows) error {
		var v string
		if err := r.Scan(&v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, "SELECT DISTINCT "+col+" FROM (SELECT "+col+" FROM memory_events ORDER BY id DESC LIMIT ?) WHERE substr(CAST("+col+" AS BLOB), 1, ?) = CAST(? AS BLOB) ORDER BY 1 LIMIT ?",
		domain.RecallScan, len(prefix), prefix, max+1)
	if err != nil {
		return nil, false, m.db.ConnError(ctx, err)
	}
	if len(out) > max {
		return out[:max], true, nil
	}
	return out, false, nil
}

// Retraction returns the retraction of event id, if it has one.
func (m *Searcher) Retraction(ctx context.Context, id int64) (domain.Retraction, bool, error) {
	var x domain.Retraction
	if err := m.db.CheckFile(); err != nil {
		return x, false, err
	}
	has, err := sqlite.HasRetractions(ctx, m.db.Readers())
	if err != nil {
		return x, false, m.db.ConnError(ctx, err)
	}
	if !has {
		return x, false, nil
	}
	err = m.db.Readers().QueryRowContext(ctx, "SELECT event_id, retraction_id, reason FROM memory_retractions WHERE event_id = ?", id).
		Scan(&x.EventID, &x.RetractionID, &x.Reason)
	if err == sql.ErrNoRows {
		return x, false, nil
	}
	if err != nil {
		return x, false, m.db.ConnError(ctx, err)
	}
	return x, true, nil
}
