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
	_, err := t.AppendEvent(ctx, domain.AppendEventRequest{Content: "first note of the benchmark", Kind: "note"})
	require.NoError(b, err)
	tools := []struct {
		name string
		call func(i int) (string, error)
	}{
		{"read_query", func(i int) (string, error) {
			return text(t.ReadQuery(ctx, domain.ReadQueryRequest{Query: "SELECT * FROM items WHERE id = 42", Limit: 100}))
		}},
		{"write_query", func(i int) (string, error) {
			return text(t.WriteQuery(ctx, domain.WriteQueryRequest{Query: fmt.Sprintf("UPDATE items SET qty = %d WHERE id = 7", i)}))
		}},
		{"destructive_query", func(i int) (string, error) {
			return text(t.DestructiveQuery(ctx, domain.DestructiveQueryRequest{Query: "DELETE FROM items WHERE id = -1", Reason: "benchmark"}))
		}},
		{"list_tables", func(int) (string, error) {
			return text(t.ListTables(ctx, domain.ListTablesRequest{IncludeRowCounts: true}))
		}},
		{"describe_table", func(int) (string, error) {
			return text(t.DescribeTable(ctx, domain.DescribeTableRequest{Table: "items"}))
		}},
		{"get_schema", func(int) (string, error) { return text(t.GetSchema(ctx, domain.GetSchemaRequest{})) }},
		{"create_view", func(i int) (string, error) {
			return text(t.CreateView(ctx, domain.CreateViewRequest{Name: "cheap_items", SelectSQL: "SELECT id, name FROM items WHERE price < 10", Description: "cheap", Replace: true}))
		}},
		{"append_event", func(i int) (string, error) {
			return text(t.AppendEvent(ctx, domain.AppendEventRequest{Content: fmt.Sprintf("note %d", i), Kind: "note"}))
		}},
		{"verify_chain", func(int) (string, error) { return text(t.VerifyChain(ctx, domain.VerifyChainRequest{})) }},
		{"checkpoint", func(i int) (string, error) {
			return text(t.Checkpoint(ctx, domain.CheckpointRequest{Summary: fmt.Sprintf("summary %d", i)}))
		}},
		{"retract_event", func(i int) (string, error) {
			out, err := text(t.AppendEvent(ctx, domain.AppendEventRequest{Content: fmt.Sprintf("mistake %d", i), Kind: "note"}))
			if err != nil {
				return "", err
			}
			var id int
			if _, err := fmt.Sscanf(out, "ok: event %d appended", &id); err != nil {
				return "", err
			}
			return text(t.RetractEvent(ctx, domain.RetractEventRequest{ID: id, Reason: "benchmark"}))
		}},
		{"get_resume_context", func(int) (string, error) {
			return text(t.GetResumeContext(ctx, domain.GetResumeContextRequest{MaxEvents: 20, MaxBytes: domain.DefaultLimits().ResumeBytes()}))
		}},
		{"search_text", func(int) (string, error) {
			return text(t.SearchText(ctx, domain.SearchTextRequest{Pattern: "item 42", Table: "items", Columns: []string{"name"}, Limit: 10, FixedStrings: true}))
		}},
		{"search_memory", func(int) (string, error) {
			return text(t.SearchMemory(ctx, domain.SearchMemoryRequest{Query: "note 42", Limit: 10}))
		}},
		{"snapshot", func(int) (string, error) { return text(t.Snapshot(ctx, domain.SnapshotRequest{Reason: "benchmark"})) }},
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

// text is a tool call's answer as the agent reads it.
func text(r ports.Result, err error) (string, error) { return r.Text, err }
