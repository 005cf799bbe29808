// Package recall reads the memory back for the SQLite adapter:
// search_memory over the memory index, and the events, kinds and sessions
// that resources and completions ask for.
package recall

import (
	"context"
	"database/sql"
	"slices"
	"strings"

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

// snippetTokens is how many tokens a snippet shows around the match.
const snippetTokens = 24

// hitsSQL selects the matches with their BM25 score (smaller is better)
// and the event's or checkpoint's own row, which the filters read.
const hitsSQL = `SELECT f.rowid AS id, bm25(memory_fts) AS score, abs(f.rowid) AS age,
coalesce(e.ts, c.ts) AS ts, coalesce(e.kind, 'checkpoint') AS kind, coalesce(e.session, c.session) AS session
FROM memory_fts f
LEFT JOIN memory_events e ON e.id = f.rowid
LEFT JOIN memory_checkpoints c ON c.id = -f.rowid
WHERE memory_fts MATCH ?`

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

// snippetSQL is the snippet of the match q.Match in one row.
const snippetSQL = "SELECT f.rowid, snippet(memory_fts, 0, '[', ']', '...', ?) FROM memory_fts f WHERE memory_fts MATCH ?"

// snippets fills in the hits' snippets, only theirs (snippet() reads the
// whole text). Each is one seek of the row, except for a query with a
// prefix term: FTS5 expands a prefix over the whole index each time the
// expression runs, so those are read in one pass over the hits' rowid
// range, keeping the hits only (+rowid is no constraint FTS5 is offered,
// so the IN filters the walk instead of running it once per value).
func snippets(ctx context.Context, conn *sql.Conn, q domain.MemoryQuery, hits []domain.MemoryHit, rowids []int64) error {
	if !q.Prefix || len(hits) < 2 {
		for i := range hits {
			var id int64
			if err := conn.QueryRowContext(ctx, snippetSQL+" AND f.rowid = ?", snippetTokens, q.Match, rowids[i]).Scan(&id, &hits[i].Snippet); err != nil {
				return err
			}
		}
		return nil
	}
	at := make(map[int64]int, len(rowids))
	args := []any{snippetTokens, q.Match, slices.Min(rowids), slices.Max(rowids)}
	for i, id := range rowids {
		at[id] = i
		args = append(args, id)
	}
	query := snippetSQL + " AND f.rowid BETWEEN ? AND ? AND +f.rowid IN (?" + strings.Repeat(", ?", len(rowids)-1) + ")"
	return sqlite.QueryOn(ctx, conn, func(r *sql.Rows) error {
		var id int64
		var s string
		if err := r.Scan(&id, &s); err != nil {
			return err
		}
		hits[at[id]].Snippet = s
		return nil
	}, query, args...)
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

// rankedHits finds up to limit hits of expr, best first (BM25, then the
// newer), leaving out the rows already found (seen) and, with a floor in
// w, the events older than it. The bound is its own arm of the query
// (rowid >= floor, which FTS5 applies while it walks the index, and the
// checkpoints, rowid < 0, when some match), so the older events are never
// scored.
func rankedHits(ctx context.Context, conn *sql.Conn, q domain.MemorySearch, sides bool, expr string, w window, seen []int64, limit int, add func(domain.MemoryHit, int64)) error {
	filters, fargs := hitFilters(q, sides, seen)
	var arms []string
	var args []any
	arm := func(bound string, bargs ...any) {
		arms = append(arms, hitsSQL+bound+filters)
		args = append(append(append(args, expr), bargs...), fargs...)
	}
	if w.floor > 0 {
		arm(" AND f.rowid >= ?", w.floor)
		if w.checkpoints {
			arm(" AND f.rowid < 0")
		}
	} else {
		arm("")
	}
	query := strings.Join(arms, "\nUNION ALL\n") + "\nORDER BY score, ts DESC, age DESC LIMIT ?"
	args = append(args, limit)
	return sqlite.QueryOn(ctx, conn, func(r *sql.Rows) error {
		var h domain.MemoryHit
		var rowid, age int64
		var score float64
		var ts, kind, session sql.NullString
		if err := r.Scan(&rowid, &score, &age, &ts, &kind, &session); err != nil {
			return err
		}
		h.ID, h.Source = rowid, domain.SourceEvent
		if rowid < 0 {
			h.ID, h.Source = -rowid, domain.SourceCheckpoint
		}
		h.TS, h.Kind, h.Session = ts.String, kind.String, session.String
		add(h, rowid)
		return nil
	}, query, args...)
}

// hitFilters is the SQL (and its arguments) of the rows a search keeps:
// not already found, with sides (the file has memory_retractions) neither
// retracted nor a retraction, of the kinds, session and time asked for.
func hitFilters(q domain.MemorySearch, sides bool, seen []int64) (string, []any) {
	var where string
	var args []any
	if len(seen) > 0 {
		where += " AND f.rowid NOT IN (?" + strings.Repeat(", ?", len(seen)-1) + ")"
		for _, id := range seen {
			args = append(args, id)
		}
	}
	if len(q.Kinds) > 0 {
		where += " AND coalesce(e.kind, 'checkpoint') IN (?" + strings.Repeat(", ?", len(q.Kinds)-1) + ")"
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	if sides {
		where += " AND f.rowid NOT IN (SELECT event_id FROM memory_retractions) AND f.rowid NOT IN (SELECT retraction_id FROM memory_retractions)"
	}
	if q.Session != "" {
		where += " AND coalesce(e.session, c.session) = ?"
		args = append(args, q.Session)
	}
	if q.Since != "" {
		where += " AND coalesce(e.ts, c.ts) >= ?"
		args = append(args, q.Since)
	}
	return where, args
}

// searchError translates a failed search. The query is built from quoted
// terms (domain.ParseMemoryQuery), so FTS5 should never find it
// malformed; if it does, the agent is told to simplify it. The search runs
// in one read transaction after the index was found present, so a
// statement SQLite refuses there (SQLITE_ERROR) is FTS5 refusing the
// query.
func (m *Searcher) searchError(ctx context.Context, err error) error {
	if ctx.Err() == nil && sqlite.IsStatementError(err) {
		return domain.Errorf(domain.ErrInvalidArgument, "the search index could not read the query (%s); use plain words", m.db.Scrub(err.Error()))
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
