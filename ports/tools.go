package ports

import "context"

// Tools is the inbound port: the fifteen tools as the core offers them to
// driving adapters (the MCP server). Every method returns the text the
// agent sees, or an error whose message is safe to show it (a
// *domain.Error); every call is audited, failures included. What each tool
// is called and which arguments it takes, with their defaults and bounds,
// is declared once in [domain.Tools].
type Tools interface {
	// ReadQuery runs one read-only statement and returns capped CSV with the
	// `# N rows` trailer.
	ReadQuery(ctx context.Context, r ReadQueryRequest) (string, error)
	// WriteQuery runs one write-tier statement in a transaction, under the
	// UPDATE guard.
	WriteQuery(ctx context.Context, query string) (string, error)
	// DestructiveQuery compiles the statement, snapshots the database, then
	// runs the statement with no row cap. reason must not be blank.
	DestructiveQuery(ctx context.Context, query, reason string) (string, error)
	// ListTables lists tables and views, with row counts when asked.
	ListTables(ctx context.Context, includeRowCounts bool) (string, error)
	// DescribeTable reports one table's or view's structure.
	DescribeTable(ctx context.Context, table string) (string, error)
	// GetSchema returns the stored CREATE statements.
	GetSchema(ctx context.Context, includeSystem bool) (string, error)
	// CreateView stores a SELECT as a view with its description.
	CreateView(ctx context.Context, r CreateViewRequest) (string, error)
	// AppendEvent appends one event to the hash chain.
	AppendEvent(ctx context.Context, content, kind string) (string, error)
	// RetractEvent withdraws one event from what the memory tools show,
	// for a reason that must not be blank, by appending a retraction; the
	// event stays in the chain.
	RetractEvent(ctx context.Context, r RetractEventRequest) (string, error)
	// VerifyChain recomputes every hash and reports the first break; a
	// non-empty expectedHead (a head hash kept elsewhere) must be in the chain.
	VerifyChain(ctx context.Context, expectedHead string) (string, error)
	// Checkpoint records a summary pinned to the chain's head.
	Checkpoint(ctx context.Context, summary string) (string, error)
	// GetResumeContext returns the latest checkpoint and the events since,
	// after verifying the chain.
	GetResumeContext(ctx context.Context, r ResumeRequest) (string, error)
	// SearchMemory ranks the events and checkpoint summaries matching a
	// query (full-text, BM25) and returns them with snippets.
	SearchMemory(ctx context.Context, r SearchMemoryRequest) (string, error)
	// SearchText narrows rows with SQL, then matches a pattern in text
	// columns.
	SearchText(ctx context.Context, r SearchTextRequest) (string, error)
	// Snapshot writes a consistent copy of the database now.
	Snapshot(ctx context.Context, reason string) (string, error)
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

// ReadQueryRequest are read_query's arguments.
type ReadQueryRequest struct {
	Query         string
	Limit, Offset int
}

// RetractEventRequest are retract_event's arguments.
type RetractEventRequest struct {
	ID     int64
	Reason string
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

// ResumeRequest are get_resume_context's arguments.
type ResumeRequest struct {
	MaxEvents, MaxBytes int
	ExcludeKinds        string
}

// SearchMemoryRequest are search_memory's arguments.
type SearchMemoryRequest struct {
	Query          string
	Kinds          []string
	Session, Since string
	Limit          int
}

// Completion is what completes a prompt argument.
type Completion struct {
	Values []string
	// More reports that more values matched than Values holds.
	More bool
}
