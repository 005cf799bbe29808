package bench_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// chainEvents is the chain length of the verify_chain budget
// (docs/decisions.md#performance-budgets).
const chainEvents = 1_000_000

// chainEvent returns event i+1 of the benchmark chain, linked to prev (the
// zero Event for the first): typical agent notes of about 100 bytes, some
// non-ASCII, one escape each, four kinds, a new session every 10,000 events.
func chainEvent(b *testing.B, i int, prev domain.Event) domain.Event {
	head := prev.Hash
	if prev.ID == 0 {
		head = domain.Genesis
	}
	ts := domain.FormatTS(time.Date(2026, 9, 13, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second))
	session := fmt.Sprintf("20260913T%06dZ-%04x", i/10_000%240000, i/10_000%65536)
	kind := [...]string{"note", "decision", "result", "error"}[i%4]
	content := fmt.Sprintf("step %d: switched the cache to WAL after \"database is locked\"; next: measure p99 — café %d", i, i%997)
	e, err := domain.NewEvent(prev.ID, head, ts, session, kind, content)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// buildChain writes a valid chain of n events into a bootstrapped database
// in b's temporary folder, fast: one transaction through database/sql with
// synchronous=OFF and a prepared INSERT. It returns the path and the events.
func buildChain(b *testing.B, n int) (string, []domain.Event) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "chain.db")
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
	events := make([]domain.Event, 0, n)
	prev := domain.Event{}
	for i := range n {
		e := chainEvent(b, i, prev)
		if _, err := ins.Exec(e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash); err != nil {
			b.Fatal(err)
		}
		events = append(events, e)
		prev = e
	}
	require.NoError(b, ins.Close())
	require.NoError(b, tx.Commit())
	require.NoError(b, db.Close())
	return path, events
}

// BenchmarkVerifyChain1M measures verify_chain over 1,000,000 stored events
// through the MCP client (budget: at least 300,000 events/s). Two floors run
// first over the same events in memory: crypto/sha256 alone over their
// payloads (built once with domain.Event.Payload), and domain's
// ChainVerifier (payload encoding, hashing, link checks). Three layers
// follow: the rows scanned through database/sql alone, the store's walk, and
// the walk plus the verifier. The verify_chain line reports its events/s and
// how many times slower than each floor it is (x_sha256, x_verifier).
// Skipped with -short.
func BenchmarkVerifyChain1M(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 1,000,000-event database")
	}
	start := time.Now()
	path, events := buildChain(b, chainEvents)
	b.Logf("built %d events in %s", chainEvents, time.Since(start).Round(time.Millisecond))
	payloads := make([][]byte, len(events))
	for i, e := range events {
		payloads[i] = e.Payload()
	}
	var shaRate, memRate float64
	b.Run("sha256_floor", func(b *testing.B) {
		for b.Loop() {
			for _, p := range payloads {
				sha256.Sum256(p)
			}
		}
		shaRate = float64(b.N*len(payloads)) / b.Elapsed().Seconds()
		b.ReportMetric(shaRate, "events/s")
	})
	b.Run("verifier_in_memory", func(b *testing.B) {
		for b.Loop() {
			v := domain.NewChainVerifier()
			for _, e := range events {
				v.Add(e)
			}
			if r := v.Result(int64(len(events))); !r.OK {
				b.Fatalf("in memory: %s", r.JSON())
			}
		}
		memRate = float64(b.N*len(events)) / b.Elapsed().Seconds()
		b.ReportMetric(memRate, "events/s")
	})
	payloads, events = nil, nil // let the walks below run without 500 MB of floors alive
	runtime.GC()

	limits := domain.DefaultLimits()
	limits.QueryTimeout = 10 * time.Minute
	env := harness.New(b, harness.Config{DBPath: path, Limits: limits})
	want := fmt.Sprintf(`{"ok": true, "events": %d, "head_id": %d,`, chainEvents, chainEvents)
	// Layers under verify_chain, to see where the time goes: the rows read
	// through database/sql alone, the store's walk, the walk plus hashing.
	b.Run("database_sql_scan", func(b *testing.B) {
		db := openSQL(b, path)
		for b.Loop() {
			rows, err := db.Query("SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events ORDER BY id")
			require.NoError(b, err)
			var e domain.Event
			n := 0
			for rows.Next() {
				require.NoError(b, rows.Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash))
				n++
			}
			require.NoError(b, rows.Err())
			rows.Close()
			require.Equal(b, chainEvents, n)
		}
		b.ReportMetric(float64(b.N*chainEvents)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("store_walk", func(b *testing.B) {
		for b.Loop() {
			n, err := env.Memory.Events(context.Background(), nil, func(domain.Event) bool { return true })
			require.NoError(b, err)
			require.Equal(b, int64(chainEvents), n)
		}
		b.ReportMetric(float64(b.N*chainEvents)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("store_verify", func(b *testing.B) {
		for b.Loop() {
			v := domain.NewChainVerifier()
			n, err := env.Memory.Events(context.Background(), nil, v.Add)
			require.NoError(b, err)
			if r := v.Result(n); !r.OK || n != chainEvents {
				b.Fatalf("store verify: %s", r.JSON())
			}
		}
		b.ReportMetric(float64(b.N*chainEvents)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("verify_chain", func(b *testing.B) {
		for b.Loop() {
			if out := env.MustCall(b, "verify_chain", nil); !strings.HasPrefix(out, want) {
				b.Fatalf("verify_chain: %s", out)
			}
		}
		rate := float64(b.N*chainEvents) / b.Elapsed().Seconds()
		b.ReportMetric(rate, "events/s")
		if shaRate > 0 {
			b.ReportMetric(shaRate/rate, "x_sha256")
		}
		if memRate > 0 {
			b.ReportMetric(memRate/rate, "x_verifier")
		}
	})
}

// appendBatch is how many append_event calls one benchmark op makes, so a
// run with -benchtime 1x still measures a rate.
const appendBatch = 200

// BenchmarkAppendEvent measures append_event throughput (each append is a
// BEGIN IMMEDIATE write with synchronous=FULL, plus its audit row): from one
// client on one in-process server, and from four clients on four in-process
// servers sharing one file, as four agent sessions would. It reports
// appends/s and checks the chain afterwards.
func BenchmarkAppendEvent(b *testing.B) {
	b.Run("one_process", func(b *testing.B) {
		env := harness.New(b, harness.Config{})
		for i := 0; b.Loop(); i++ {
			for j := range appendBatch {
				env.MustCall(b, "append_event", map[string]any{"content": fmt.Sprintf("op %d append %d: measured one process", i, j)})
			}
		}
		b.ReportMetric(float64(b.N*appendBatch)/b.Elapsed().Seconds(), "appends/s")
		checkChain(b, env, b.N*appendBatch)
	})
	b.Run("four_servers_one_file", func(b *testing.B) {
		first := harness.New(b, harness.Config{})
		envs := []*harness.Env{first}
		for range 3 {
			envs = append(envs, harness.New(b, harness.Config{DBPath: first.DBPath}))
		}
		for i := 0; b.Loop(); i++ {
			errs := make(chan error, len(envs))
			var wg sync.WaitGroup
			for s, env := range envs {
				wg.Go(func() { errs <- appendMany(env.Client, appendBatch/len(envs), fmt.Sprintf("op %d session %d", i, s)) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(b, err)
			}
		}
		b.ReportMetric(float64(b.N*appendBatch)/b.Elapsed().Seconds(), "appends/s")
		checkChain(b, first, b.N*appendBatch)
	})
}

// appendMany makes n append_event calls one after the other.
func appendMany(cs *mcp.ClientSession, n int, label string) error {
	for j := range n {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "append_event",
			Arguments: map[string]any{"content": fmt.Sprintf("%s append %d", label, j)}})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("append_event failed: %v", res.Content)
		}
	}
	return nil
}

// checkChain fails b unless the chain verifies with exactly n events.
func checkChain(b *testing.B, env *harness.Env, n int) {
	b.Helper()
	want := fmt.Sprintf(`{"ok": true, "events": %d, "head_id": %d,`, n, n)
	if out := env.MustCall(b, "verify_chain", nil); !strings.HasPrefix(out, want) {
		b.Fatalf("after %d appends: %s", n, out)
	}
}
