package bench_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// searchEvents is the log length of the search_memory benchmark.
const searchEvents = 100_000

// BenchmarkSearchMemory ranks 100k events (buildChain's notes: every one
// says "cache" and "WAL", one in 997 says "café 42") through the core: a
// rare term, a term in every event (BM25 scores all 100k), and a phrase.
// The index is built by the first open of the file, as for a file the
// reference made.
func BenchmarkSearchMemory(b *testing.B) {
	path, _ := buildChain(b, searchEvents)
	env := harness.New(b, harness.Config{DBPath: path})
	require.True(b, env.Store.IndexRebuilt())
	ctx := context.Background()
	for _, q := range []struct{ name, query string }{
		{"rare_term", "step 4242"},
		{"term_in_every_event", "cache"},
		{"phrase", `"database is locked"`},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				out, err := text(env.Tools.SearchMemory(ctx, domain.SearchMemoryRequest{Query: q.query, Limit: 10}))
				if err != nil {
					b.Fatal(err)
				}
				if len(out) < 100 {
					b.Fatal(out)
				}
			}
		})
	}
}

// BenchmarkAppendEventIndex is append_event through the core (fsynced
// commit, audit row in the same transaction) on two files of 1000 events:
// one with the search index kept in step, one whose index was dropped
// from outside (an append skips a missing index). The ratio of the two is
// what the index costs per append.
func BenchmarkAppendEventIndex(b *testing.B) {
	ctx := context.Background()
	open := func(b *testing.B, index bool) *harness.Env {
		path, _ := buildChain(b, 1000)
		env := harness.New(b, harness.Config{DBPath: path})
		if !index {
			db := openSQL(b, path)
			_, err := db.Exec("DROP TABLE memory_fts")
			require.NoError(b, err)
			require.NoError(b, db.Close())
		}
		return env
	}
	for _, tc := range []struct {
		name  string
		index bool
	}{{"with_index", true}, {"without_index", false}} {
		b.Run(tc.name, func(b *testing.B) {
			env := open(b, tc.index)
			for b.Loop() {
				if _, err := env.Tools.AppendEvent(ctx, domain.AppendEventRequest{Content: "switched the cache to WAL after \"database is locked\"; next: measure p99", Kind: domain.DefaultKind}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
