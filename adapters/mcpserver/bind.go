package mcpserver

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// call runs one tool on the core with the call's decoded arguments.
type call func(ctx context.Context, t ports.Tools, a args) (string, error)

// calls binds each declared tool to its method of the inbound port; the
// argument names are the declaration's (domain/tools.go).
var calls = map[string]call{
	domain.ToolReadQuery: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.ReadQuery(ctx, ports.ReadQueryRequest{Query: a.str("query"), Limit: a.int("limit"), Offset: a.int("offset")})
	},
	domain.ToolListTables: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.ListTables(ctx, a.bool("include_row_counts"))
	},
	domain.ToolDescribeTable: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.DescribeTable(ctx, a.str("table"))
	},
	domain.ToolGetSchema: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.GetSchema(ctx, a.bool("include_system"))
	},
	domain.ToolSearchText: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.SearchText(ctx, ports.SearchTextRequest{
			Pattern: a.str("pattern"), Table: a.str("table"), Columns: a.strs("columns"), Where: a.str("where"),
			KeyColumn: a.str("key_column"), Limit: a.int("limit"), IgnoreCase: a.bool("ignore_case"),
			FixedStrings: a.bool("fixed_strings"), ContextChars: a.int("context_chars"),
		})
	},
	domain.ToolVerifyChain: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.VerifyChain(ctx, a.str("expected_head"))
	},
	domain.ToolGetResumeContext: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.GetResumeContext(ctx, ports.ResumeRequest{MaxEvents: a.int("max_events"), MaxBytes: a.int("max_bytes"), ExcludeKinds: a.str("exclude_kinds")})
	},
	domain.ToolSearchMemory: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.SearchMemory(ctx, ports.SearchMemoryRequest{
			Query: a.str("query"), Kinds: a.strs("kinds"), Session: a.str("session"), Since: a.str("since"), Limit: a.int("limit"),
		})
	},
	domain.ToolWriteQuery: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.WriteQuery(ctx, a.str("query"))
	},
	domain.ToolDestructiveQuery: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.DestructiveQuery(ctx, a.str("query"), a.str("reason"))
	},
	domain.ToolCreateView: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.CreateView(ctx, ports.CreateViewRequest{
			Name: a.str("name"), SelectSQL: a.str("select_sql"), Description: a.str("description"), Replace: a.bool("replace"),
		})
	},
	domain.ToolAppendEvent: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.AppendEvent(ctx, a.str("content"), a.str("kind"))
	},
	domain.ToolRetractEvent: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.RetractEvent(ctx, ports.RetractEventRequest{ID: int64(a.int("id")), Reason: a.str("reason")})
	},
	domain.ToolCheckpoint: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.Checkpoint(ctx, a.str("summary"))
	},
	domain.ToolSnapshot: func(ctx context.Context, t ports.Tools, a args) (string, error) {
		return t.Snapshot(ctx, a.str("reason"))
	},
}
