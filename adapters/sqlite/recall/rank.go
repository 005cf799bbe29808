package recall

import (
	"context"
	"database/sql"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// hitsSQL selects the matches with their BM25 score (smaller is better)
// and the event's or checkpoint's own row, which the filters read.
const hitsSQL = `SELECT f.rowid AS id, bm25(memory_fts) AS score, abs(f.rowid) AS age,
coalesce(e.ts, c.ts) AS ts, coalesce(e.kind, 'checkpoint') AS kind, coalesce(e.session, c.session) AS session
FROM memory_fts f
LEFT JOIN memory_events e ON e.id = f.rowid
LEFT JOIN memory_checkpoints c ON c.id = -f.rowid
WHERE memory_fts MATCH ?`

// scoredSQL selects the matches with their BM25 score only: what a search
// that filters on no event column ranks.
const scoredSQL = `SELECT f.rowid AS id, bm25(memory_fts) AS score FROM memory_fts f WHERE memory_fts MATCH ?`

// cutSQL joins the rows of scored (a materialised set of id and score)
// whose score is at most the limit-th best, ties included, to their
// event's or checkpoint's row: the only rows the final order (score, then
// ts, then id) can put first, so the others are never looked up.
const cutSQL = `
SELECT s.id, s.score, abs(s.id) AS age,
coalesce(e.ts, c.ts) AS ts, coalesce(e.kind, 'checkpoint') AS kind, coalesce(e.session, c.session) AS session
FROM scored s
LEFT JOIN memory_events e ON e.id = s.id
LEFT JOIN memory_checkpoints c ON c.id = -s.id
WHERE s.score <= coalesce((SELECT score FROM scored ORDER BY score LIMIT 1 OFFSET ? - 1), 1e308)`

// rankedHits finds up to limit hits of expr, best first (BM25, then the
// newer), leaving out the rows already found (seen) and, with a floor in
// w, the events older than it. The bound is its own arm of the query
// (rowid >= floor, which FTS5 applies while it walks the index, and the
// checkpoints, rowid < 0, when some match), so the older events are never
// scored. A search that filters on no event column (kind, session, time)
// scores the matches first and reads the event rows of the best ones only
// (cutSQL); one that does reads every match's row, as its filter must.
func rankedHits(ctx context.Context, conn *sql.Conn, q domain.MemorySearch, sides bool, expr string, w window, seen []int64, limit int, add func(domain.MemoryHit, int64)) error {
	rowFilters, rowArgs := idFilters(sides, seen)
	byRow := len(q.Kinds) == 0 && q.Session == "" && q.Since == ""
	head, filters, fargs := hitsSQL, rowFilters, rowArgs
	if byRow {
		head = scoredSQL
	} else {
		f, a := columnFilters(q)
		filters, fargs = rowFilters+f, append(rowArgs, a...)
	}
	var arms []string
	var args []any
	arm := func(bound string, bargs ...any) {
		arms = append(arms, head+bound+filters)
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
	query := strings.Join(arms, "\nUNION ALL\n")
	if byRow {
		query = "WITH scored AS MATERIALIZED (" + query + ")" + cutSQL
		args = append(args, limit)
	}
	query += "\nORDER BY score, ts DESC, age DESC LIMIT ?"
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

// idFilters is the SQL (and its arguments) of the rows a search keeps by
// id alone: not already found and, with sides (the file has
// memory_retractions), neither retracted nor a retraction.
func idFilters(sides bool, seen []int64) (string, []any) {
	var where string
	var args []any
	if len(seen) > 0 {
		where += " AND f.rowid NOT IN (?" + strings.Repeat(", ?", len(seen)-1) + ")"
		for _, id := range seen {
			args = append(args, id)
		}
	}
	if sides {
		where += " AND f.rowid NOT IN (SELECT event_id FROM memory_retractions) AND f.rowid NOT IN (SELECT retraction_id FROM memory_retractions)"
	}
	return where, args
}

// columnFilters is the SQL (and its arguments) of the rows a search keeps
// by their event's or checkpoint's columns: of the kinds, session and time
// asked for.
func columnFilters(q domain.MemorySearch) (string, []any) {
	var where string
	var args []any
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
	return where, args
}
