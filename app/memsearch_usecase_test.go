package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// recallStub answers every search with its hits and result, and records
// the searches it was asked.
type recallStub struct {
	ports.MemoryRecall
	hits     []domain.MemoryHit
	res      domain.MemorySearchResult
	searches []domain.MemorySearch
}

func (r *recallStub) Search(_ context.Context, q domain.MemorySearch, hit func(domain.MemoryHit)) (domain.MemorySearchResult, error) {
	r.searches = append(r.searches, q)
	for _, h := range r.hits {
		hit(h)
	}
	return r.res, nil
}

func TestSearchMemorySaysWhatTheIndexLeftOut(t *testing.T) {
	w := newWorld(t)
	stub := &recallStub{
		hits: []domain.MemoryHit{{Source: domain.SourceEvent, ID: 7, TS: "2026-09-13T10:00:00Z", Kind: "note", Session: "s", Snippet: "the [cache]"}},
		res:  domain.MemorySearchResult{More: true, Matched: 10000, Ranked: 10000, Unranked: true, Lag: 3},
	}
	d := w.deps()
	d.Recall = stub
	w.rebuild(d)
	out, err := text(w.svc.SearchMemory(context.Background(), domain.SearchMemoryRequest{Query: "cache  warm*", Kinds: []string{" note ", ""}, Since: "2026-09-13", Limit: 1}))
	require.NoError(t, err)
	assert.Equal(t, "source,id,ts,kind,session,snippet\nevent,7,2026-09-13T10:00:00Z,note,s,the [cache]\n"+
		"# 1 rows, truncated by limit=1 (more rows exist; raise limit up to 1000 or narrow the query)\n"+
		"# more than 10000 events match; the newest 10000 (and every checkpoint) were ranked, whatever the filters: add a rarer word, or use "+domain.ToolSearchText+" on memory_events with a where on ts, to reach older ones\n"+
		"# 3 newer events are not in the search index yet (another program appended them); a restart of the server indexes them", out)
	require.Len(t, stub.searches, 1)
	q := stub.searches[0]
	assert.Equal(t, `"cache" AND "warm"*`, q.Query.All)
	assert.Equal(t, `"cache" OR "warm"*`, q.Query.Match)
	assert.Equal(t, []string{"note"}, q.Kinds, "kinds are stripped, blanks dropped")
	assert.Equal(t, "2026-09-13T00:00:00Z", q.Since)
	e := w.onlyEntry(t)
	assert.Equal(t, "search_memory", e.Tool)
	require.NotNil(t, e.Query)
	assert.Equal(t, "cache  warm*", *e.Query)
	assert.Contains(t, e.Detail, `"matched": 10000, "ranked": 10000, "index_lag": 3, "unranked": true`)
}

func TestSearchMemoryChecksItsArgumentsFirst(t *testing.T) {
	for _, r := range []domain.SearchMemoryRequest{
		{Query: "x", Limit: 0},
		{Query: "x", Limit: 1001},
		{Query: "x", Limit: 1, Kinds: strings.Split(strings.Repeat("k,", domain.MaxMemoryKinds+1), ",")},
		{Query: "(", Limit: 1},
		{Query: "x", Limit: 1, Since: "last week"},
	} {
		w := newWorld(t)
		stub := &recallStub{}
		d := w.deps()
		d.Recall = stub
		w.rebuild(d)
		_, err := w.svc.SearchMemory(context.Background(), r)
		assert.ErrorIs(t, err, domain.ErrInvalidArgument, "%+v", r)
		assert.Empty(t, stub.searches, "nothing reaches the index: %+v", r)
		assert.False(t, w.onlyEntry(t).OK)
	}
}
