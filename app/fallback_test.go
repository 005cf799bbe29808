package app_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
)

// searcherFn is a stub engine.
type searcherFn func(context.Context, domain.SearchQuery, iter.Seq[string], func(domain.LineMatch) error) error

func (f searcherFn) Search(ctx context.Context, q domain.SearchQuery, l iter.Seq[string], found func(domain.LineMatch) error) error {
	return f(ctx, q, l, found)
}
func (searcherFn) Name() string { return "stub" }

func TestFallbackServesWhenPrimaryCannotStart(t *testing.T) {
	missing := searcherFn(func(context.Context, domain.SearchQuery, iter.Seq[string], func(domain.LineMatch) error) error {
		return domain.Errorf(domain.ErrUnavailable, "rg cannot start")
	})
	f := app.FallbackSearcher{Primary: missing, Fallback: regexp2.New()}
	var got []int
	err := f.Search(context.Background(), domain.SearchQuery{Pattern: "b"}, slices.Values([]string{"a", "b", "abc"}),
		func(m domain.LineMatch) error { got = append(got, m.Index); return nil })
	assert.NoError(t, err)
	assert.Equal(t, []int{1, 2}, got)
}

func TestFallbackKeepsOtherErrors(t *testing.T) {
	bad := searcherFn(func(context.Context, domain.SearchQuery, iter.Seq[string], func(domain.LineMatch) error) error {
		return domain.Errorf(domain.ErrInvalidArgument, "bad pattern")
	})
	err := app.FallbackSearcher{Primary: bad, Fallback: regexp2.New()}.Search(context.Background(), domain.SearchQuery{Pattern: "("}, slices.Values([]string{"a"}), func(domain.LineMatch) error { return nil })
	assert.ErrorIs(t, err, domain.ErrInvalidArgument)
}

// The fallback searcher is a third implementation of the port: with a
// primary that cannot start it must answer exactly as the engine it falls
// back to, which the contract holds to ripgrep's answers.
func TestFallbackSearcherContract(t *testing.T) {
	cannotStart := searcherFn(func(context.Context, domain.SearchQuery, iter.Seq[string], func(domain.LineMatch) error) error {
		return domain.Errorf(domain.ErrUnavailable, "rg cannot start")
	})
	contract.TestTextSearcher(t, func(*testing.T) ports.TextSearcher {
		return app.FallbackSearcher{Primary: cannotStart, Fallback: regexp2.New()}
	})
}
