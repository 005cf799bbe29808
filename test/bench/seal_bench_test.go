package bench_test

import (
	"context"
	"path/filepath"
	"testing"

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
// the chain: the store's walk of about 10,000 events with 1,000 checkpoints,
// events only (what verify_chain did before it checked checkpoints), then
// checkpoints and events in one walk. The second reports x_events_only, its
// time per walk over the first's.
func BenchmarkVerifyEveryCheckpoint(b *testing.B) {
	path, cps := buildSealedChain(b, 10_000, 8)
	env := harness.New(b, harness.Config{DBPath: path})
	var eventsOnly float64
	b.Run("events_only", func(b *testing.B) {
		for b.Loop() {
			v := domain.NewChainVerifier()
			n, err := env.Memory.Events(context.Background(), nil, v.Add)
			require.NoError(b, err)
			if r := v.Result(n); !r.OK {
				b.Fatal(r.JSON())
			}
		}
		eventsOnly = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("with_checkpoints", func(b *testing.B) {
		for b.Loop() {
			v := domain.NewChainVerifier()
			n, err := env.Memory.Events(context.Background(), v.Checkpoint, v.Add)
			require.NoError(b, err)
			if r := v.Result(n); !r.OK || r.Sealed != int64(cps) {
				b.Fatalf("%d checkpoints: %s", cps, r.JSON())
			}
		}
		if eventsOnly > 0 {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/eventsOnly, "x_events_only")
		}
	})
}
