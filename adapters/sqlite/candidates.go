package sqlite

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// CandidateSource reads search_text's candidate rows: the agent's WHERE
// text, under the read tier, on db's agent connections.
type CandidateSource struct {
	db *Store
}

var _ ports.CandidateSource = (*CandidateSource)(nil)

// NewCandidateSource returns the candidate source of db.
func NewCandidateSource(db *Store) *CandidateSource {
	return &CandidateSource{db: db}
}

// Candidates streams search_text's candidate rows. The agent's WHERE text
// runs under the read tier like any read_query, and the cap is enforced here
// while stepping: a WHERE that comments out the LIMIT clause or adds a UNION
// still yields at most q.Limit rows.
func (cs *CandidateSource) Candidates(ctx context.Context, q domain.CandidateQuery, row ports.RowFunc) (int, bool, error) {
	var b strings.Builder
	b.WriteString("SELECT ")
	if q.KeyColumn == "" {
		b.WriteString("rowid")
	} else {
		b.WriteString(quoteIdent(q.KeyColumn))
	}
	b.WriteString(" AS __key")
	for _, c := range q.Columns {
		b.WriteString(", ")
		b.WriteString(quoteIdent(c))
	}
	b.WriteString(" FROM ")
	b.WriteString(quoteIdent(q.Table))
	if w := strings.TrimSpace(q.Where); w != "" {
		b.WriteString(" WHERE (")
		b.WriteString(w)
		b.WriteString("\n)")
	}
	b.WriteString("\nLIMIT ")
	b.WriteString(itoa(q.Limit + 1))
	n, capped := 0, false
	// The pattern may match anywhere in a value: candidates are read whole.
	err := cs.db.read(ctx, b.String(), 0, func([]string) {}, func(v []any) bool {
		if n == q.Limit {
			capped = true
			return false
		}
		n++
		return row(v)
	})
	return n, capped, err
}

func itoa(n int) string { return strconv.Itoa(n) }
