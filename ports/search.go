package ports

import (
	"context"
	"iter"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TextSearcher finds the first match of a pattern in each line of a stream.
// Lines never contain '\n'. Implementations must agree exactly: the same
// lines and query give the same matches, in line order, with the same byte
// offsets (test/contract runs one suite against every implementation).
type TextSearcher interface {
	// Search calls found once per matching line, in line order, and stops at
	// the first error found returns. It reads lines lazily, so memory stays
	// flat however many lines there are.
	//
	// Errors: [domain.ErrInvalidArgument] for a pattern the engine rejects
	// (the message says why and what to pass instead), [domain.ErrTimeout]
	// when ctx expires, [domain.ErrUnavailable] when the engine cannot run
	// at all (another engine may serve instead), [domain.ErrSearch] when
	// the engine itself fails.
	Search(ctx context.Context, q domain.SearchQuery, lines iter.Seq[string], found func(domain.LineMatch) error) error
	// Name says which engine serves ("ripgrep", "regexp2") for logs.
	Name() string
}
