package bench_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// BenchmarkResumeFlat measures get_resume_context through the MCP client
// on chains of 1,000 and 100,000 events (budget: the p50 at 100k at most 2x
// the p50 at 1k). The first resume walks the whole chain; later ones check
// only what this server committed since (its own audit rows, and in the
// "after_append" rows one append_event before each resume). Each row
// reports p50 and p90 in µs; the 100k rows also report x_1k, their p50 over
// the 1k row's of the same kind, measured in the same run. verify_chain's
// p50 at each size is the whole walk the resume no longer pays. Skipped
// with -short.
func BenchmarkResumeFlat(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 100,000-event database")
	}
	sizes := []int{1_000, 100_000}
	envs := map[int]*harness.Env{}
	for _, n := range sizes {
		path, _ := buildChain(b, n)
		envs[n] = harness.New(b, harness.Config{DBPath: path})
	}
	p50s := map[string]float64{}
	for _, kind := range []string{"resume", "after_append", "verify_chain"} {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s_%dk", kind, n/1000), func(b *testing.B) {
				env := envs[n]
				tool := "get_resume_context"
				if kind == "verify_chain" {
					tool = kind
				}
				if out := env.MustCall(b, tool, nil); !strings.Contains(out, "ok") {
					b.Fatalf("first call: %s", out)
				}
				var took []time.Duration
				for i := 0; b.Loop(); i++ {
					if kind == "after_append" {
						b.StopTimer()
						env.MustCall(b, "append_event", map[string]any{"content": fmt.Sprintf("appended before resume %d", i)})
						b.StartTimer()
					}
					start := time.Now()
					out := env.MustCall(b, tool, nil)
					took = append(took, time.Since(start))
					if kind != "verify_chain" && !strings.Contains(out, "| chain ok (") {
						b.Fatalf("resume: %s", out)
					}
				}
				slices.Sort(took)
				p50 := float64(took[len(took)/2].Nanoseconds()) / 1e3
				b.ReportMetric(p50, "p50_µs")
				b.ReportMetric(float64(took[len(took)*9/10].Nanoseconds())/1e3, "p90_µs")
				p50s[fmt.Sprintf("%s_%d", kind, n)] = p50
				if base, ok := p50s[fmt.Sprintf("%s_%d", kind, sizes[0])]; ok && n != sizes[0] {
					b.ReportMetric(p50/base, "x_1k")
				}
			})
		}
	}
}
