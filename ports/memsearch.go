package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// MemoryRecall reads the memory back by relevance and by id: search_memory
// from the server's full-text index of the events and checkpoint
// summaries, one event for its resource, and the values a prompt argument
// completes from. It only reads, and runs no agent SQL.
type MemoryRecall interface {
	// Search calls hit for the best q.Limit matches, best first: those
	// holding every term, then those holding some, each by BM25, then the
	// newer. It reports whether more matched, how many events the index
	// has not taken in yet (written by another program since the index
	// was last brought up to date), and how many matches were ranked
	// (at most [domain.MaxRankedMatches] events, the newest). Retracted
	// events and retractions are never hits; the retracted events that
	// match are counted in Retracted.
	//
	// Errors: [domain.ErrUnavailable] when the file has no index (a
	// read-only open of a file no writable server has opened),
	// [domain.ErrTimeout], [domain.ErrInvalidArgument] for a query the
	// index cannot read.
	Search(ctx context.Context, q domain.MemorySearch, hit func(domain.MemoryHit)) (domain.MemorySearchResult, error)
	// Event returns the event with that id.
	// Errors: [domain.ErrNotFound].
	Event(ctx context.Context, id int64) (domain.Event, error)
	// Retraction returns the retraction of event id, found false when it
	// is not retracted.
	Retraction(ctx context.Context, id int64) (r domain.Retraction, found bool, err error)
	// Values returns up to max distinct values of field that start with
	// prefix, among the newest [domain.RecallScan] events, sorted, and
	// whether more matched.
	Values(ctx context.Context, field domain.RecallField, prefix string, max int) ([]string, bool, error)
}
