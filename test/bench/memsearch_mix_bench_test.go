package bench_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// mixNouns, mixVerbs and mixRare are the vocabulary of the search mix's
// corpus. Nouns and verbs are drawn with a Zipf law (the first ones are in
// a large share of the events, the last ones in a few hundred); each event
// also names one ticket of 50,000 (a word in two events).
var (
	mixNouns = strings.Fields(`cache database index migration schema query test build deploy server client
		session token config lock timeout retry queue worker handler request response error log metric trace
		parser lexer router proxy socket buffer stream channel mutex goroutine heap stack profile benchmark
		release branch commit merge review patch fixture golden snapshot checkpoint backup restore replica
		shard partition vacuum pragma journal wal fsync page cursor statement transaction rollback savepoint
		trigger view table column constraint foreign key primary unique collation tokenizer ranking snippet
		prefix phrase budget deadline cap limit quota throttle backoff jitter probe health readiness`)
	mixVerbs = strings.Fields(`fixed added removed renamed measured profiled switched rewrote tested reverted
		merged split moved cached indexed migrated deployed rolled retried locked unlocked traced logged
		checked verified sealed compacted vacuumed tuned bounded capped documented reviewed`)
	mixTemplates = []string{
		"%[1]s the %[2]s after the %[3]s failed with \"database is locked\"; next: %[4]s the %[5]s (%[6]s)",
		"%[1]s %[2]s and %[3]s in %[6]s; the %[4]s now %[5]s on every call",
		"decision: keep the %[2]s, drop the %[3]s; %[1]s because %[4]s %[5]s was slow (%[6]s)",
		"result: %[2]s p99 went from %[7]d ms to %[8]d ms after we %[1]s the %[3]s (%[6]s)",
		"error: %[2]s %[3]s timed out while the %[4]s %[1]s the %[5]s; see %[6]s",
	}
)

// mixEvent returns the content of event i of the search mix's corpus,
// drawn from r and the two Zipf laws.
func mixEvent(i int, r *rand.Rand, nouns, verbs *rand.Zipf) string {
	t := mixTemplates[r.IntN(len(mixTemplates))]
	n := func() string { return mixNouns[nouns.Uint64()] }
	v := func() string { return mixVerbs[verbs.Uint64()] }
	return fmt.Sprintf(t, v(), n(), n(), n(), v(), fmt.Sprintf("ticket%d", i%50_000), 10+r.IntN(990), 1+r.IntN(99))
}

// buildMixCorpus writes a valid chain of n events of the search mix's
// corpus (four kinds, a new session every 1000 events) into a
// bootstrapped database, like buildChain.
func buildMixCorpus(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "mix.db")
	store, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	require.NoError(b, err)
	require.NoError(b, store.Close())
	db := openSQL(b, path)
	db.SetMaxOpenConns(1)
	for _, p := range []string{"PRAGMA synchronous = OFF", "PRAGMA cache_size = -262144"} {
		_, err := db.Exec(p)
		require.NoError(b, err)
	}
	tx, err := db.Begin()
	require.NoError(b, err)
	defer tx.Rollback()
	ins, err := tx.Prepare("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)")
	require.NoError(b, err)
	r := rand.New(rand.NewPCG(1, 2))
	nouns := rand.NewZipf(r, 1.1, 2, uint64(len(mixNouns)-1))
	verbs := rand.NewZipf(r, 1.1, 2, uint64(len(mixVerbs)-1))
	prev, head := int64(0), domain.Genesis
	start := time.Date(2026, 9, 13, 0, 0, 0, 0, time.UTC)
	for i := range n {
		ts := domain.FormatTS(start.Add(time.Duration(i) * time.Second))
		e, err := domain.NewEvent(prev, head, ts, fmt.Sprintf("mix-%03d", i/1000), [...]string{"note", "decision", "result", "error"}[i%4], mixEvent(i, r, nouns, verbs))
		require.NoError(b, err)
		_, err = ins.Exec(e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash)
		require.NoError(b, err)
		prev, head = e.ID, e.Hash
	}
	require.NoError(b, ins.Close())
	require.NoError(b, tx.Commit())
	require.NoError(b, db.Close())
	return path
}

// BenchmarkSearchMemoryMix is search_memory through the core on 100k
// events of the mix corpus (a few of them retracted, so the retraction
// path runs), by query kind: a rare word (a ticket, two events), a common
// word (the most frequent noun, in about a third of the events), two
// words, a phrase in a fifth of the events, and a prefix. Each kind runs
// a few queries in turn; p50 and p90 are of every call's own time
// (budget: p50 under 5 ms, docs/decisions.md#memory-search-speed), and
// cpu-ns/op the process's CPU time per call, the steadier figure on a
// shared machine.
func BenchmarkSearchMemoryMix(b *testing.B) {
	path := buildMixCorpus(b, searchEvents)
	env := harness.New(b, harness.Config{DBPath: path})
	require.True(b, env.Store.IndexRebuilt())
	ctx := context.Background()
	for id := 1000; id <= 10_000; id += 1000 {
		_, err := env.Tools.RetractEvent(ctx, domain.RetractEventRequest{ID: id, Reason: "benchmark"})
		require.NoError(b, err)
	}
	for _, k := range []struct {
		name    string
		queries []string
	}{
		{"rare_word", []string{"ticket4242", "ticket31337", "ticket7", "ticket49999"}},
		{"common_word", []string{"cache", "database", "index"}},
		{"two_words", []string{"cache timeout", "migration rollback", "fixed deadline"}},
		{"phrase", []string{`"database is locked"`, `"p99 went from"`, `"on every call"`}},
		{"prefix", []string{"migrat*", "tick*", "bench*"}},
		{"kind_filter", []string{"cache"}},
	} {
		b.Run(k.name, func(b *testing.B) {
			var took []time.Duration
			i := 0
			cpu := perf2CPU(b)
			for b.Loop() {
				req := domain.SearchMemoryRequest{Query: k.queries[i%len(k.queries)], Limit: 10}
				if k.name == "kind_filter" {
					req.Kinds = []string{"error"}
				}
				i++
				t0 := time.Now()
				out, err := text(env.Tools.SearchMemory(ctx, req))
				took = append(took, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				if !strings.Contains(out, "\nevent,") {
					b.Fatal(out)
				}
			}
			cpu()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
		})
	}
}
