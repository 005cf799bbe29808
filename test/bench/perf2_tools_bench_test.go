package bench_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// BenchmarkToolAllocs reports allocs/op and B/op (and the time) of each of
// the 15 tools through the core: app and the adapters, each call's audit
// row included, no MCP SDK. The bench command prints them. An event is
// retracted once, so retract_event's figure is an append_event and the
// retraction of that event.
func BenchmarkToolAllocs(b *testing.B) {
	limits := domain.DefaultLimits()
	limits.Snapshots = 2
	env := harness.New(b, harness.Config{Limits: limits})
	seed(b, env, 1000)
	ctx := context.Background()
	t := env.Tools
	_, err := t.AppendEvent(ctx, "first note of the benchmark", "note")
	require.NoError(b, err)
	tools := []struct {
		name string
		call func(i int) (string, error)
	}{
		{"read_query", func(i int) (string, error) {
			return t.ReadQuery(ctx, ports.ReadQueryRequest{Query: "SELECT * FROM items WHERE id = 42", Limit: 100})
		}},
		{"write_query", func(i int) (string, error) {
			return t.WriteQuery(ctx, fmt.Sprintf("UPDATE items SET qty = %d WHERE id = 7", i))
		}},
		{"destructive_query", func(i int) (string, error) {
			return t.DestructiveQuery(ctx, "DELETE FROM items WHERE id = -1", "benchmark")
		}},
		{"list_tables", func(int) (string, error) { return t.ListTables(ctx, true) }},
		{"describe_table", func(int) (string, error) { return t.DescribeTable(ctx, "items") }},
		{"get_schema", func(int) (string, error) { return t.GetSchema(ctx, false) }},
		{"create_view", func(i int) (string, error) {
			return t.CreateView(ctx, ports.CreateViewRequest{Name: "cheap_items", SelectSQL: "SELECT id, name FROM items WHERE price < 10", Description: "cheap", Replace: true})
		}},
		{"append_event", func(i int) (string, error) { return t.AppendEvent(ctx, fmt.Sprintf("note %d", i), "note") }},
		{"retract_event", func(i int) (string, error) {
			out, err := t.AppendEvent(ctx, fmt.Sprintf("mistake %d", i), "note")
			if err != nil {
				return "", err
			}
			var id int64
			if _, err := fmt.Sscanf(out, "ok: event %d appended", &id); err != nil {
				return "", err
			}
			return t.RetractEvent(ctx, ports.RetractEventRequest{ID: id, Reason: "benchmark"})
		}},
		{"verify_chain", func(int) (string, error) { return t.VerifyChain(ctx, "") }},
		{"checkpoint", func(i int) (string, error) { return t.Checkpoint(ctx, fmt.Sprintf("summary %d", i)) }},
		{"get_resume_context", func(int) (string, error) {
			return t.GetResumeContext(ctx, ports.ResumeRequest{MaxEvents: 20, MaxBytes: domain.DefaultLimits().ResumeBytes()})
		}},
		{"search_text", func(int) (string, error) {
			return t.SearchText(ctx, ports.SearchTextRequest{Pattern: "item 42", Table: "items", Columns: []string{"name"}, Limit: 10, FixedStrings: true})
		}},
		{"search_memory", func(int) (string, error) {
			return t.SearchMemory(ctx, ports.SearchMemoryRequest{Query: "note 42", Limit: 10})
		}},
		{"snapshot", func(int) (string, error) { return t.Snapshot(ctx, "benchmark") }},
	}
	for _, tool := range tools {
		b.Run(tool.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_, err := tool.call(i)
				require.NoError(b, err)
			}
		})
	}
}
