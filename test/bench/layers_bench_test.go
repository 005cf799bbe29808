package bench_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// BenchmarkReadQueryLayers splits read_query's cost: the adapter alone
// (compile, policy, EXPLAIN check, step) and the adapter plus the audit row.
func BenchmarkReadQueryLayers(b *testing.B) {
	env := harness.New(b, harness.Config{})
	seed(b, env, 1000)
	ctx := context.Background()
	b.Run("store_read", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			err := env.Statements.Read(ctx, fmt.Sprintf("SELECT * FROM items WHERE id = %d", i%1000+1), func([]string) {}, func([]any) bool { return true })
			require.NoError(b, err)
		}
	})
	b.Run("service_with_audit", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			_, err := env.Tools.ReadQuery(ctx, domain.ReadQueryRequest{Query: fmt.Sprintf("SELECT * FROM items WHERE id = %d", i%1000+1), Limit: 100})
			require.NoError(b, err)
		}
	})
}
