package app

import (
	"context"
	"errors"
	"iter"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// FallbackSearcher serves text searches with Primary and, when Primary is
// unavailable for a call (ripgrep was removed or cannot start), with
// Fallback. Both engines give identical answers (test/contract proves it),
// so the agent cannot tell which one served.
type FallbackSearcher struct {
	Primary, Fallback ports.TextSearcher
}

var _ ports.TextSearcher = FallbackSearcher{}

// Search runs the primary engine and retries with the fallback only when
// the primary reports [domain.ErrUnavailable] before it produced anything.
func (f FallbackSearcher) Search(ctx context.Context, q domain.SearchQuery, lines iter.Seq[string], found func(domain.LineMatch) error) error {
	matched := false
	err := f.Primary.Search(ctx, q, lines, func(m domain.LineMatch) error {
		matched = true
		return found(m)
	})
	if errors.Is(err, domain.ErrUnavailable) && !matched {
		return f.Fallback.Search(ctx, q, lines, found)
	}
	return err
}

// Name names the primary engine.
func (f FallbackSearcher) Name() string {
	return f.Primary.Name() + " (falls back to " + f.Fallback.Name() + ")"
}
