package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// CandidateSource streams the rows search_text searches. It runs SQL the
// agent wrote (q.Where), so it answers under the read tier of the
// statement policy, like [StatementRunner.Read].
type CandidateSource interface {
	// Candidates streams the candidate rows (the key, then the searched
	// columns) of q, the agent's WHERE text included. It stops after
	// q.Limit rows, whatever the WHERE text does, and reports how many rows
	// it produced and whether more existed.
	//
	// Errors: those of [StatementRunner].
	Candidates(ctx context.Context, q domain.CandidateQuery, row RowFunc) (n int, capped bool, err error)
}
