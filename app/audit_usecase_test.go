package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// everyTool calls each tool once with arguments that pass the core's own
// checks.
var everyTool = []struct {
	tool string
	call func(ctx context.Context, w *world) error
}{
	{"read_query", func(ctx context.Context, w *world) error {
		_, err := w.svc.ReadQuery(ctx, domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
		return err
	}},
	{"write_query", func(ctx context.Context, w *world) error {
		_, err := w.svc.WriteQuery(ctx, domain.WriteQueryRequest{Query: "INSERT INTO t VALUES (1)"})
		return err
	}},
	{"destructive_query", func(ctx context.Context, w *world) error {
		_, err := w.svc.DestructiveQuery(ctx, domain.DestructiveQueryRequest{Query: "DELETE FROM t", Reason: "tidy"})
		return err
	}},
	{"list_tables", func(ctx context.Context, w *world) error {
		_, err := w.svc.ListTables(ctx, domain.ListTablesRequest{IncludeRowCounts: true})
		return err
	}},
	{"describe_table", func(ctx context.Context, w *world) error {
		_, err := w.svc.DescribeTable(ctx, domain.DescribeTableRequest{Table: "t"})
		return err
	}},
	{"get_schema", func(ctx context.Context, w *world) error {
		_, err := w.svc.GetSchema(ctx, domain.GetSchemaRequest{})
		return err
	}},
	{"create_view", func(ctx context.Context, w *world) error {
		_, err := w.svc.CreateView(ctx, domain.CreateViewRequest{Name: "v", SelectSQL: "SELECT 1"})
		return err
	}},
	{"append_event", func(ctx context.Context, w *world) error {
		_, err := w.svc.AppendEvent(ctx, domain.AppendEventRequest{Content: "x", Kind: "note"})
		return err
	}},
	{"verify_chain", func(ctx context.Context, w *world) error {
		_, err := w.svc.VerifyChain(ctx, domain.VerifyChainRequest{})
		return err
	}},
	{"checkpoint", func(ctx context.Context, w *world) error {
		_, err := w.svc.Checkpoint(ctx, domain.CheckpointRequest{Summary: "so far"})
		return err
	}},
	{"get_resume_context", func(ctx context.Context, w *world) error {
		_, err := w.svc.GetResumeContext(ctx, domain.GetResumeContextRequest{MaxEvents: 10, MaxBytes: 4096})
		return err
	}},
	{"search_text", func(ctx context.Context, w *world) error {
		_, err := w.svc.SearchText(ctx, domain.SearchTextRequest{Pattern: "x", Table: "t", Limit: 1})
		return err
	}},
	{"snapshot", func(ctx context.Context, w *world) error {
		_, err := w.svc.Snapshot(ctx, domain.SnapshotRequest{Reason: "now"})
		return err
	}},
	{"search_memory", func(ctx context.Context, w *world) error {
		_, err := w.svc.SearchMemory(ctx, domain.SearchMemoryRequest{Query: "x", Limit: 1})
		return err
	}},
	{domain.AuditResourceRead, func(ctx context.Context, w *world) error {
		_, err := w.svc.ReadResource(ctx, domain.ResourceCheckpoint)
		return err
	}},
	{domain.AuditPromptGet, func(ctx context.Context, w *world) error {
		_, err := w.svc.GetPrompt(ctx, domain.PromptResume, nil)
		return err
	}},
	{domain.AuditComplete, func(ctx context.Context, w *world) error {
		_, err := w.svc.Complete(ctx, domain.PromptRecall, "kind", "no")
		return err
	}},
	{"some_tool", func(ctx context.Context, w *world) error {
		return w.svc.Reject(ctx, "some_tool", domain.Errorf(domain.ErrInvalidArgument, "unknown argument"))
	}},
}

// Every call leaves exactly one audit row under its tool's name, whether
// it succeeds or its store fails, and the row says which.
func TestEveryCallLeavesOneAuditRow(t *testing.T) {
	t.Parallel()
	busy := domain.Errorf(domain.ErrBusy, "another program holds the write lock; retry")
	for _, tc := range everyTool {
		for _, broken := range []bool{false, true} {
			t.Run(tc.tool+map[bool]string{false: "/ok", true: "/store fails"}[broken], func(t *testing.T) {
				t.Parallel()
				w := newWorld(t)
				w.db.Schema.AddTable("t", 1, [2]string{"x", "TEXT"})
				w.db.Statements.Columns, w.db.Statements.Compiled = []string{"x"}, domain.Compiled{Actions: []domain.Action{domain.ActionSelect}}
				w.db.CandidateRows.Columns, w.db.CandidateRows.Rows = []string{"x"}, [][]any{{int64(1), "x"}}
				if broken {
					w.db.Statements.ReadErr, w.db.Statements.WriteErr, w.db.Statements.CompileErr = busy, busy, busy
					w.db.Schema.Err, w.db.CandidateRows.Err, w.db.Memory.Err, w.snaps.Err = busy, busy, busy, busy
				}
				err := tc.call(context.Background(), w)
				e := w.onlyEntry(t)
				assert.Equal(t, tc.tool, e.Tool)
				assert.Equal(t, "20261201T100000Z-test", e.Session)
				assert.Equal(t, domain.FormatTS(epoch), e.TS)
				if tc.tool == "some_tool" || broken {
					require.Error(t, err)
					assert.False(t, e.OK)
					assert.Equal(t, err.Error(), e.Error)
					if broken && tc.tool != "some_tool" {
						assert.ErrorIs(t, err, domain.ErrBusy, "the store's kind reaches the agent")
					}
					return
				}
				require.NoError(t, err)
				assert.True(t, e.OK)
				assert.Empty(t, e.Error)
			})
		}
	}
}
