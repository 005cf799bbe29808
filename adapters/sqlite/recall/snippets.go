package recall

import (
	"context"
	"database/sql"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// snippetTokens is how many tokens a snippet shows around the match.
const snippetTokens = 24

// snippetSQL is the snippet of the match q.Match in one row.
const snippetSQL = "SELECT f.rowid, snippet(memory_fts, 0, '[', ']', '...', ?) FROM memory_fts f WHERE memory_fts MATCH ?"

// snippets fills in the hits' snippets, only theirs (snippet() reads the
// whole text), the events' and the checkpoints' each in one statement.
func snippets(ctx context.Context, conn *sql.Conn, q domain.MemoryQuery, hits []domain.MemoryHit, rowids []int64) error {
	var events, checkpoints []int
	for i, id := range rowids {
		if id > 0 {
			events = append(events, i)
		} else {
			checkpoints = append(checkpoints, i)
		}
	}
	for _, group := range [][]int{events, checkpoints} {
		if err := snippetGroup(ctx, conn, q, hits, rowids, group); err != nil {
			return err
		}
	}
	return nil
}

// snippetSpan is the widest rowid range whose matches snippetGroup walks
// in one pass; hits spread wider are sought one by one.
const snippetSpan = 4 * domain.MaxRankedMatches

// snippetGroup fills in the snippets of the hits at group, all events or
// all checkpoints. They are read in one walk of the match over the group's
// rowid range, keeping the group's rows only (+rowid is no constraint FTS5
// is offered, so the IN filters the walk instead of running it once per
// value), when the range is narrow (a ranked window is) or the query has a
// prefix term (FTS5 expands a prefix over the whole index each time the
// expression runs). Otherwise each row is sought on its own (rowid = ?,
// which FTS5 serves by seeking), through one prepared statement.
func snippetGroup(ctx context.Context, conn *sql.Conn, q domain.MemoryQuery, hits []domain.MemoryHit, rowids []int64, group []int) error {
	if len(group) == 0 {
		return nil
	}
	lo, hi := rowids[group[0]], rowids[group[0]]
	at := make(map[int64]int, len(group))
	for _, i := range group {
		lo, hi = min(lo, rowids[i]), max(hi, rowids[i])
		at[rowids[i]] = i
	}
	scan := func(r *sql.Rows) error {
		var id int64
		var s string
		if err := r.Scan(&id, &s); err != nil {
			return err
		}
		hits[at[id]].Snippet = s
		return nil
	}
	if len(group) == 1 || !q.Prefix && hi-lo > snippetSpan {
		st, err := conn.PrepareContext(ctx, snippetSQL+" AND f.rowid = ?")
		if err != nil {
			return err
		}
		defer st.Close()
		for _, i := range group {
			if err := st.QueryRowContext(ctx, snippetTokens, q.Match, rowids[i]).Scan(new(int64), &hits[i].Snippet); err != nil {
				return err
			}
		}
		return nil
	}
	args := []any{snippetTokens, q.Match, lo, hi}
	for _, i := range group {
		args = append(args, rowids[i])
	}
	query := snippetSQL + " AND f.rowid BETWEEN ? AND ? AND +f.rowid IN (?" + strings.Repeat(", ?", len(group)-1) + ")"
	return sqlite.QueryOn(ctx, conn, scan, query, args...)
}
