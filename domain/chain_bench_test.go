package domain_test

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// benchEvents is the size of the chain the benchmarks walk.
const benchEvents = 100_000

// mustBenchChain builds a valid chain of benchEvents events with typical
// content: a sentence or two, some of it non-ASCII, one escape per event.
func mustBenchChain(b *testing.B) []domain.Event {
	b.Helper()
	events := make([]domain.Event, 0, benchEvents)
	headID, headHash := int64(0), domain.Genesis
	for i := range benchEvents {
		content := fmt.Sprintf("step %d: switched the cache to WAL mode after the \"database is locked\" errors; "+
			"next: measure p99 latency — café résumé\nowner: agent", i)
		e, err := domain.NewEvent(headID, headHash, "2026-09-13T10:11:12Z", "20260913T101100Z-3fa9", "decision", content)
		require.NoError(b, err)
		events = append(events, e)
		headID, headHash = e.ID, e.Hash
	}
	return events
}

// BenchmarkVerify measures [domain.ChainVerifier] over 100k events in memory:
// payload encoding, SHA-256 and the link checks, without any I/O. The budget
// (docs/decisions.md#performance-budgets) asks verify_chain for at least 300,000 events/s end to end.
func BenchmarkVerify(b *testing.B) {
	events := mustBenchChain(b)
	b.ReportAllocs()
	walks := 0
	for b.Loop() {
		v := domain.NewChainVerifier()
		for _, e := range events {
			v.Add(e)
		}
		if r := v.Result(benchEvents); !r.OK {
			b.Fatalf("chain broken: %s", r.JSON())
		}
		walks++
	}
	b.ReportMetric(float64(walks*benchEvents)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSHA256Floor hashes the same payloads with crypto/sha256 alone:
// the floor BenchmarkVerify can approach, to compare in the same run.
func BenchmarkSHA256Floor(b *testing.B) {
	events := mustBenchChain(b)
	payloads := make([][]byte, len(events))
	for i, e := range events {
		payloads[i] = e.Payload()
	}
	b.ReportAllocs()
	walks := 0
	var sink [sha256.Size]byte
	for b.Loop() {
		for _, p := range payloads {
			sink = sha256.Sum256(p)
		}
		walks++
	}
	_ = sink
	b.ReportMetric(float64(walks*benchEvents)/b.Elapsed().Seconds(), "events/s")
}
