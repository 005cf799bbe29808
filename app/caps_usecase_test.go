package app_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// A call that finds every slot taken waits within its own deadline, then
// fails naming the flag to raise, runs nothing, and is still audited.
func TestCallsBeyondTheCapWaitThenFailNamingTheFlag(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(l *domain.Limits) { l.MaxConcurrentCalls, l.QueryTimeout = 1, 200*time.Millisecond })
	entered, release := make(chan struct{}), make(chan struct{})
	w.db.Statements.ReadFn = func(ctx context.Context, _ string, columns func([]string), row ports.RowFunc) error {
		close(entered)
		<-release // holds the only slot
		columns([]string{"v"})
		return nil
	}
	first := make(chan error, 1)
	go func() {
		_, err := w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
		first <- err
	}()
	<-entered
	_, err := w.svc.ListTables(context.Background(), domain.ListTablesRequest{})
	wantKind(t, err, domain.ErrTimeout, "--max-concurrent-calls", "nothing was run")
	close(release)
	require.NoError(t, <-first)
	entries := w.db.Entries()
	require.Len(t, entries, 2, "the refused call has its row too")
	assert.Equal(t, "list_tables", entries[0].Tool)
	assert.False(t, entries[0].OK)
}

// search_text has a cap of its own (--max-concurrent-searches): other
// tools still run while a search holds it.
func TestSearchesBeyondTheirCapWaitWhileOtherToolsRun(t *testing.T) {
	t.Parallel()
	w := searchWorld(t, func(l *domain.Limits) {
		l.MaxConcurrentSearches, l.MaxConcurrentCalls, l.QueryTimeout = 1, 4, 200*time.Millisecond
	})
	entered, release := make(chan struct{}), make(chan struct{})
	w.search.SearchFn = func(_ context.Context, _ domain.SearchQuery, lines iter.Seq[string], _ func(domain.LineMatch) error) error {
		close(entered)
		<-release
		return nil
	}
	first := make(chan error, 1)
	go func() {
		_, err := w.svc.SearchText(context.Background(), domain.SearchTextRequest{Pattern: "fox", Table: "notes", Limit: 1})
		first <- err
	}()
	<-entered
	_, err := w.svc.ListTables(context.Background(), domain.ListTablesRequest{})
	require.NoError(t, err, "a search holds no call slot beyond its own")
	_, err = w.svc.SearchText(context.Background(), domain.SearchTextRequest{Pattern: "fox", Table: "notes", Limit: 1})
	wantKind(t, err, domain.ErrTimeout, "--max-concurrent-searches")
	close(release)
	require.NoError(t, <-first)
}
