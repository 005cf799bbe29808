package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Tools is the inbound port: the fifteen tools as the core offers them to
// driving adapters (the MCP server), one method per tool, each taking the
// tool's request type (its arguments, [domain.Tool.Request]) and returning
// its [Result], or an error whose message is safe to show the agent (a
// *domain.Error); every call is audited, failures included. What each tool
// is called and which arguments it takes, with their defaults and bounds,
// is declared once in [domain.Tools]; the driving adapter applies the
// defaults, the core checks the bounds
// (docs/decisions.md#one-typed-request-per-tool).
type Tools interface {
	// ReadQuery runs one read-only statement and returns capped CSV with the
	// `# N rows` trailer.
	ReadQuery(ctx context.Context, r domain.ReadQueryRequest) (Result, error)
	// WriteQuery runs one write-tier statement in a transaction, under the
	// UPDATE guard.
	WriteQuery(ctx context.Context, r domain.WriteQueryRequest) (Result, error)
	// DestructiveQuery compiles the statement, snapshots the database, then
	// runs the statement with no row cap. The reason must not be blank.
	DestructiveQuery(ctx context.Context, r domain.DestructiveQueryRequest) (Result, error)
	// ListTables lists tables and views, with row counts when asked.
	ListTables(ctx context.Context, r domain.ListTablesRequest) (Result, error)
	// DescribeTable reports one table's or view's structure.
	DescribeTable(ctx context.Context, r domain.DescribeTableRequest) (Result, error)
	// GetSchema returns the stored CREATE statements.
	GetSchema(ctx context.Context, r domain.GetSchemaRequest) (Result, error)
	// CreateView stores a SELECT as a view with its description.
	CreateView(ctx context.Context, r domain.CreateViewRequest) (Result, error)
	// AppendEvent appends one event to the hash chain.
	AppendEvent(ctx context.Context, r domain.AppendEventRequest) (Result, error)
	// RetractEvent withdraws one event from what the memory tools show,
	// for a reason that must not be blank, by appending a retraction; the
	// event stays in the chain.
	RetractEvent(ctx context.Context, r domain.RetractEventRequest) (Result, error)
	// VerifyChain recomputes every hash and reports the first break; a
	// non-empty expected head (a head hash kept elsewhere) must be in the
	// chain.
	VerifyChain(ctx context.Context, r domain.VerifyChainRequest) (Result, error)
	// Checkpoint records a summary pinned to the chain's head.
	Checkpoint(ctx context.Context, r domain.CheckpointRequest) (Result, error)
	// GetResumeContext returns the latest checkpoint and the events since,
	// after verifying the chain.
	GetResumeContext(ctx context.Context, r domain.GetResumeContextRequest) (Result, error)
	// SearchMemory ranks the events and checkpoint summaries matching a
	// query (full-text, BM25) and returns them with snippets.
	SearchMemory(ctx context.Context, r domain.SearchMemoryRequest) (Result, error)
	// SearchText narrows rows with SQL, then matches a pattern in text
	// columns.
	SearchText(ctx context.Context, r domain.SearchTextRequest) (Result, error)
	// Snapshot writes a consistent copy of the database now.
	Snapshot(ctx context.Context, r domain.SnapshotRequest) (Result, error)
	// ReadResource returns the text of one memory resource
	// ([domain.ParseResourceURI]); audited like a tool call.
	ReadResource(ctx context.Context, uri string) (string, error)
	// GetPrompt renders one prompt ([domain.Prompts]) with its arguments;
	// audited like a tool call.
	GetPrompt(ctx context.Context, name string, args map[string]string) (string, error)
	// Complete offers the values of a prompt's argument that start with
	// value, at most [domain.MaxCompletions]; audited like a tool call.
	Complete(ctx context.Context, prompt, argument, value string) (Completion, error)
	// Reject audits a call the driving adapter refused before it reached a
	// tool (malformed arguments) and returns err for the agent.
	Reject(ctx context.Context, tool string, err error) error
}

// Result is what a tool call answers: the text the agent sees and, for a
// tool that answers with a table (domain.Tool.Table) called through tools
// that keep tables (app.Service.KeepingTables), the same table as typed
// values; nil otherwise, and for a write without RETURNING.
type Result struct {
	Text  string
	Table *domain.TableData
}

// Completion is what completes a prompt argument.
type Completion struct {
	Values []string
	// More reports that more values matched than Values holds.
	More bool
}
