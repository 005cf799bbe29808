package fake

import (
	"context"
	"iter"
	"strings"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Searcher is a [ports.TextSearcher] that looks for the pattern as a
// literal (the same with and without FixedStrings), folding ASCII case when
// asked: enough for the core's bookkeeping, not a regular expression
// engine. It keeps the queries it was given.
type Searcher struct {
	// Err, when set, fails every search before any line is read (give it
	// [domain.ErrUnavailable] to play an engine that cannot start).
	Err error
	// SearchFn, when set, answers instead.
	SearchFn func(ctx context.Context, q domain.SearchQuery, lines iter.Seq[string], found func(domain.LineMatch) error) error

	mu      sync.Mutex
	queries []domain.SearchQuery
}

var _ ports.TextSearcher = (*Searcher)(nil)

// Search reports the first occurrence of q.Pattern in each line.
func (s *Searcher) Search(ctx context.Context, q domain.SearchQuery, lines iter.Seq[string], found func(domain.LineMatch) error) error {
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	if s.SearchFn != nil {
		return s.SearchFn(ctx, q, lines, found)
	}
	if s.Err != nil {
		return s.Err
	}
	pattern := q.Pattern
	if q.IgnoreCase {
		pattern = strings.ToLower(pattern)
	}
	i := 0
	var err error
	for line := range lines {
		if err = ctx.Err(); err != nil {
			return domain.Errorf(domain.ErrTimeout, "the search took too long: %v", err)
		}
		text := line
		if q.IgnoreCase {
			text = strings.ToLower(line) // ASCII input keeps its offsets
		}
		if at := strings.Index(text, pattern); at >= 0 {
			if err = found(domain.LineMatch{Index: i, Text: line, Start: at, End: at + len(pattern)}); err != nil {
				return err
			}
		}
		i++
	}
	return nil
}

// Name names the fake.
func (s *Searcher) Name() string { return "fake" }

// Queries returns the queries searched so far.
func (s *Searcher) Queries() []domain.SearchQuery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]domain.SearchQuery(nil), s.queries...)
}
