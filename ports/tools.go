package ports

import "context"

// Tools is the inbound port: the thirteen tools as the core offers them to
// driving adapters (the MCP server). Every method returns the text the
// agent sees, or an error whose message is safe to show it (a
// *domain.Error); every call is audited, failures included.
type Tools interface {
	ReadQuery(ctx context.Context, r ReadQueryRequest) (string, error)
	WriteQuery(ctx context.Context, query string) (string, error)
	DestructiveQuery(ctx context.Context, query, reason string) (string, error)
	ListTables(ctx context.Context, includeRowCounts bool) (string, error)
	DescribeTable(ctx context.Context, table string) (string, error)
	GetSchema(ctx context.Context, includeSystem bool) (string, error)
	CreateView(ctx context.Context, r CreateViewRequest) (string, error)
	AppendEvent(ctx context.Context, content, kind string) (string, error)
	VerifyChain(ctx context.Context) (string, error)
	Checkpoint(ctx context.Context, summary string) (string, error)
	GetResumeContext(ctx context.Context, maxEvents int, excludeKinds string) (string, error)
	SearchText(ctx context.Context, r SearchTextRequest) (string, error)
	Snapshot(ctx context.Context, reason string) (string, error)
	// Reject audits a call the driving adapter refused before it reached a
	// tool (malformed arguments) and returns err for the agent.
	Reject(ctx context.Context, tool string, err error) error
}

// ReadQueryRequest are read_query's arguments.
type ReadQueryRequest struct {
	Query         string
	Limit, Offset int
}

// CreateViewRequest are create_view's arguments.
type CreateViewRequest struct {
	Name, SelectSQL, Description string
	Replace                      bool
}

// SearchTextRequest are search_text's arguments.
type SearchTextRequest struct {
	Pattern, Table           string
	Columns                  []string
	Where, KeyColumn         string
	Limit                    int
	IgnoreCase, FixedStrings bool
	ContextChars             int
}
