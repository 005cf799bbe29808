package searchbench_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

func BenchmarkAllMatch(b *testing.B) {
	rg, _ := exec.LookPath("rg")
	for _, s := range []ports.TextSearcher{ripgrep.New(rg), regexp2.New()} {
		for _, p := range []string{"e", `\w+`} {
			b.Run(s.Name()+"/"+p, func(b *testing.B) {
				for range b.N {
					hits := 0
					_ = s.Search(context.Background(), domain.SearchQuery{Pattern: p}, lines(1_000_000), func(domain.LineMatch) error { hits++; return nil })
					b.ReportMetric(float64(hits), "hits")
				}
			})
		}
	}
}
