package bench_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// buildSealedChain writes n events into a new database with a checkpoint
// after every `every` of them, as this server writes them: a marker before
// the first, each checkpoint followed by its seal. n counts every event,
// markers and seals included.
func buildSealedChain(b *testing.B, n, every int) (path string, checkpoints int) {
	b.Helper()
	path = filepath.Join(b.TempDir(), "sealed.db")
	store, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	require.NoError(b, err)
	require.NoError(b, store.Close())
	db := openSQL(b, path)
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	require.NoError(b, err)
	defer tx.Rollback()
	ins, err := tx.Prepare("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)")
	require.NoError(b, err)
	insCP, err := tx.Prepare("INSERT INTO memory_checkpoints (id, ts, session, summary, last_event_id, head_hash) VALUES (?, ?, ?, ?, ?, ?)")
	require.NoError(b, err)
	add := func(e domain.Event) {
		_, err := ins.Exec(e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash)
		require.NoError(b, err)
	}
	prev := domain.Event{Hash: domain.Genesis}
	for i := 0; int(prev.ID) < n; i++ {
		e := chainEvent(b, i, prev)
		add(e)
		prev = e
		if (i+1)%every != 0 || int(prev.ID)+2 > n {
			continue
		}
		c, err := domain.NewCheckpoint(prev.ID, prev.Hash, e.TS, e.Session, "summary of the work so far: schema ready, cache on WAL; next: p99")
		require.NoError(b, err)
		checkpoints++
		c.ID = int64(checkpoints)
		if checkpoints == 1 {
			var marker domain.Event
			marker, c, err = c.WithSealMarker()
			require.NoError(b, err)
			add(marker)
		}
		_, err = insCP.Exec(c.ID, c.TS, c.Session, c.Summary, c.LastEventID, c.HeadHash)
		require.NoError(b, err)
		seal, err := domain.NewSeal(c)
		require.NoError(b, err)
		add(seal)
		prev = seal
	}
	require.NoError(b, tx.Commit())
	require.NoError(b, db.Close())
	return path, checkpoints
}

// BenchmarkVerifyEveryCheckpoint prices checking every checkpoint against
// the chain: the store's walk of about 10,000 events with 1,000
// checkpoints, events only (what verify_chain did before it checked
// checkpoints) and checkpoints with events in one walk, run in turns in
// the same loop so that a busy machine slows both alike. It reports each
// walk's time and x_events_only, the ratio of the two.
func BenchmarkVerifyEveryCheckpoint(b *testing.B) {
	path, cps := buildSealedChain(b, 10_000, 8)
	env := harness.New(b, harness.Config{DBPath: path})
	walk := func(withCheckpoints bool) time.Duration {
		start := time.Now()
		v := domain.NewChainVerifier()
		var cp func(domain.Checkpoint)
		if withCheckpoints {
			cp = v.Checkpoint
		}
		n, err := env.Memory.Events(context.Background(), cp, v.Add)
		took := time.Since(start)
		require.NoError(b, err)
		r := v.Result(n)
		if !r.OK || withCheckpoints && r.Sealed != int64(cps) {
			b.Fatalf("%d checkpoints: %s", cps, r.JSON())
		}
		return took
	}
	var only, with time.Duration
	for b.Loop() {
		only += walk(false)
		with += walk(true)
	}
	b.ReportMetric(float64(only.Nanoseconds())/float64(b.N), "ns/events_only")
	b.ReportMetric(float64(with.Nanoseconds())/float64(b.N), "ns/with_checkpoints")
	b.ReportMetric(float64(with)/float64(only), "x_events_only")
}
