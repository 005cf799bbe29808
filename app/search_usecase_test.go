package app_test

import (
	"context"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// searchWorld has a notes table (id, title, body, score) and a view, and
// candidate rows whose bodies mention a fox in rows 2 and 3.
func searchWorld(t *testing.T, tune ...func(*domain.Limits)) *world {
	t.Helper()
	w := newWorld(t, tune...)
	w.db.Schema.AddTable("notes", 3, [2]string{"id", "INTEGER"}, [2]string{"title", "TEXT"}, [2]string{"body", "VARCHAR(80)"}, [2]string{"score", "REAL"})
	w.db.Schema.AddTable("numbers", 1, [2]string{"n", "INTEGER"})
	w.db.Schema.Descriptions["recent"] = domain.TableDescription{Name: "recent", Type: "view", Columns: []domain.Column{{Name: "title", Type: "TEXT"}}}
	w.db.CandidateRows.Columns = []string{"title", "body"}
	w.db.CandidateRows.Rows = [][]any{
		{int64(1), "alpha", "nothing here"},
		{int64(2), "beta", "a fox ran"},
		{int64(3), "the fox", "fox again"},
	}
	return w
}

func TestSearchText(t *testing.T) {
	t.Parallel()
	base := domain.SearchTextRequest{Pattern: "fox", Table: "notes", Limit: 10, ContextChars: 20}
	with := func(f func(*domain.SearchTextRequest)) domain.SearchTextRequest { r := base; f(&r); return r }
	cases := []struct {
		name       string
		req        domain.SearchTextRequest
		candidates int // --search-candidates, 0 for the default
		wantKind   error
		wantSays   []string
		wantOut    []string
		notOut     []string
		wantQuery  *domain.CandidateQuery
	}{
		{name: "text columns are picked, every match counted", req: base,
			wantOut:   []string{"key,column,snippet\n2,body,a fox ran\n3,title,the fox\n3,body,fox again\n", "# 3 of 3 matching values in 2 rows (3 candidate rows x 2 columns scanned)"},
			wantQuery: &domain.CandidateQuery{Table: "notes", Columns: []string{"title", "body"}, Limit: 5000}},
		{name: "the limit cuts the output, not the count", req: with(func(r *domain.SearchTextRequest) { r.Limit = 1 }),
			wantOut: []string{"# 1 of 3 matching values in 2 rows"}, notOut: []string{"fox again"}},
		{name: "columns resolved in any letter case, once each", req: with(func(r *domain.SearchTextRequest) { r.Columns = []string{"BODY", "body"} }),
			wantQuery: &domain.CandidateQuery{Table: "notes", Columns: []string{"body"}, Limit: 5000}},
		{name: "key column and where passed on", req: with(func(r *domain.SearchTextRequest) { r.KeyColumn = "ID"; r.Where = " score > 1 " }),
			wantQuery: &domain.CandidateQuery{Table: "notes", KeyColumn: "id", Columns: []string{"title", "body"}, Where: " score > 1 ", Limit: 5000}},
		{name: "the candidate cap is --search-candidates and is reported", req: base, candidates: 2,
			wantOut: []string{"(2 candidate rows x 2 columns scanned); candidate cap of 2 rows hit, tighten the WHERE filter"}},
		{name: "an empty pattern", req: with(func(r *domain.SearchTextRequest) { r.Pattern = "" }), wantKind: domain.ErrInvalidArgument, wantSays: []string{"pattern"}},
		{name: "limit 0", req: with(func(r *domain.SearchTextRequest) { r.Limit = 0 }), wantKind: domain.ErrInvalidArgument, wantSays: []string{"limit"}},
		{name: "context_chars above 1000", req: with(func(r *domain.SearchTextRequest) { r.ContextChars = 1001 }), wantKind: domain.ErrInvalidArgument, wantSays: []string{"context_chars"}},
		{name: "a missing table", req: with(func(r *domain.SearchTextRequest) { r.Table = "gone" }), wantKind: domain.ErrNotFound},
		{name: "an unknown column", req: with(func(r *domain.SearchTextRequest) { r.Columns = []string{"nope"} }), wantKind: domain.ErrNotFound, wantSays: []string{"available: ['id', 'title', 'body', 'score']"}},
		{name: "a table without text columns", req: with(func(r *domain.SearchTextRequest) { r.Table = "numbers" }), wantKind: domain.ErrInvalidArgument, wantSays: []string{"columns=[...]"}},
		{name: "a view needs a key column", req: with(func(r *domain.SearchTextRequest) { r.Table = "recent" }), wantKind: domain.ErrInvalidArgument, wantSays: []string{"key_column"}},
		{name: "an unknown key column", req: with(func(r *domain.SearchTextRequest) { r.KeyColumn = "nope" }), wantKind: domain.ErrNotFound, wantSays: []string{"key_column"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := searchWorld(t, func(l *domain.Limits) {
				if tc.candidates > 0 {
					l.SearchCandidates = tc.candidates
				}
			})
			out, err := text(w.svc.SearchText(context.Background(), tc.req))
			e := w.onlyEntry(t)
			assert.Equal(t, "search_text", e.Tool)
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind, tc.wantSays...)
				assert.Empty(t, w.db.CandidateRows.Queries(), "a bad argument reads no rows")
				assert.False(t, e.OK)
				return
			}
			require.NoError(t, err)
			for _, s := range tc.wantOut {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.notOut {
				assert.NotContains(t, out, s)
			}
			if tc.wantQuery != nil {
				assert.Equal(t, []domain.CandidateQuery{*tc.wantQuery}, w.db.CandidateRows.Queries())
			}
			assert.Equal(t, []domain.SearchQuery{{Pattern: "fox"}}, w.search.Queries())
			assert.Empty(t, w.methods(), "the candidates come from the candidate source, not the statement runner")
			assert.True(t, e.OK)
		})
	}
}

func TestSearchTextWithoutAnEngine(t *testing.T) {
	t.Parallel()
	w := searchWorld(t)
	d := w.deps()
	d.Search = nil
	w.rebuild(d)
	_, err := w.svc.SearchText(context.Background(), domain.SearchTextRequest{Pattern: "fox", Table: "notes", Limit: 1})
	wantKind(t, err, domain.ErrUnavailable)
	assert.False(t, w.onlyEntry(t).OK)
}

// When the first engine cannot start, the fallback reads the candidate
// rows afresh: the keys are those of the second pass, not doubled.
func TestSearchTextFallsBackWithFreshRows(t *testing.T) {
	t.Parallel()
	w := searchWorld(t)
	broken := &fake.Searcher{SearchFn: func(_ context.Context, _ domain.SearchQuery, lines iter.Seq[string], _ func(domain.LineMatch) error) error {
		for range lines { // reads everything, then cannot go on
		}
		return domain.Errorf(domain.ErrUnavailable, "rg cannot start")
	}}
	d := w.deps()
	d.Search = app.FallbackSearcher{Primary: broken, Fallback: w.search}
	w.rebuild(d)
	out, err := text(w.svc.SearchText(context.Background(), domain.SearchTextRequest{Pattern: "fox", Table: "notes", Limit: 10, ContextChars: 20}))
	require.NoError(t, err)
	assert.Contains(t, out, "\n2,body,a fox ran\n3,title,the fox\n3,body,fox again\n# 3 of 3 matching values in 2 rows (3 candidate rows")
	assert.Len(t, w.db.CandidateRows.Queries(), 2, "one pass per engine")
}

func TestSearchTextEngineErrorKeepsItsKind(t *testing.T) {
	t.Parallel()
	w := searchWorld(t)
	w.search.Err = domain.Errorf(domain.ErrInvalidArgument, "look-around is not supported; use fixed_strings")
	_, err := w.svc.SearchText(context.Background(), domain.SearchTextRequest{Pattern: "(?=x)", Table: "notes", Limit: 1})
	wantKind(t, err, domain.ErrInvalidArgument, "fixed_strings")
	w2 := searchWorld(t)
	w2.db.CandidateRows.Err = domain.Errorf(domain.ErrPolicy, "DELETE is not allowed in search_text's where")
	_, err = w2.svc.SearchText(context.Background(), domain.SearchTextRequest{Pattern: "x", Table: "notes", Limit: 1, Where: "1) ; DELETE"})
	wantKind(t, err, domain.ErrPolicy, "where")
}

func TestSearchTextValuesCutToTheirHead(t *testing.T) {
	t.Parallel()
	w := searchWorld(t, func(l *domain.Limits) { l.MaxSearchValueBytes = 8 })
	out, err := text(w.svc.SearchText(context.Background(), domain.SearchTextRequest{Pattern: "fox", Table: "notes", Limit: 10}))
	require.NoError(t, err)
	assert.Contains(t, out, "values longer than 8 bytes were searched in their first 8 bytes only (--max-search-value-bytes)")
	assert.Contains(t, w.onlyEntry(t).Detail, `"values_cut"`)
}
