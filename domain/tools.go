package domain

// MaxOffset is the largest read_query offset: beyond it a JSON number
// would no longer hold every integer exactly.
const MaxOffset = 1_000_000_000_000_000

// rowLimit is a row limit's range: 1 to --max-rows.
func rowLimit(l Limits) (int, int) { return 1, l.MaxRows }

// defaultLimit is a row limit left out: --default-limit.
func defaultLimit(l Limits) any { return l.DefaultLimit }

// The integer arguments the core bounds. The use cases check a call's
// value against the same declaration the schemas show, so a bound or a
// default is written once.
var (
	// ArgQueryLimit is read_query's row limit.
	ArgQueryLimit = Arg{Name: "limit", Type: ArgInteger, Default: defaultLimit, Bounds: rowLimit,
		Doc: "Rows to return."}
	// ArgOffset is read_query's paging offset.
	ArgOffset = Arg{Name: "offset", Type: ArgInteger, Default: fixed(0), Bounds: func(Limits) (int, int) { return 0, MaxOffset },
		Doc: "Rows to skip, for paging."}
	// ArgSearchLimit is how many matching values search_text shows.
	ArgSearchLimit = Arg{Name: "limit", Type: ArgInteger, Default: defaultLimit, Bounds: rowLimit,
		Doc: "Matches to show; the trailer counts all."}
	// ArgContextChars is the context on each side of a search_text match.
	ArgContextChars = Arg{Name: "context_chars", Type: ArgInteger, Default: fixed(80), Bounds: func(Limits) (int, int) { return 0, 1000 },
		Doc: "Context on each side of a match."}
	// ArgMaxEvents is how many events get_resume_context shows: 50, or
	// --max-rows when that is smaller.
	ArgMaxEvents = Arg{Name: "max_events", Type: ArgInteger, Default: func(l Limits) any { return min(50, l.MaxRows) }, Bounds: rowLimit,
		Doc: "Newest events after the checkpoint to show."}
	// ArgResumeMaxBytes is get_resume_context's byte budget: at most
	// [Limits.ResumeBytes], at least what its fixed lines need.
	ArgResumeMaxBytes = Arg{Name: "max_bytes", Type: ArgInteger, Default: func(l Limits) any { return l.ResumeBytes() },
		Bounds: func(l Limits) (int, int) { return min(MinResumeBytes, l.ResumeBytes()), l.ResumeBytes() },
		Doc:    "Most bytes to return."}
	// ArgMemoryLimit is how many hits search_memory returns: 10, or
	// --max-rows when that is smaller.
	ArgMemoryLimit = Arg{Name: "limit", Type: ArgInteger, Default: func(l Limits) any { return min(10, l.MaxRows) }, Bounds: rowLimit,
		Doc: "Most hits, best first."}
)

// MinResumeBytes is the smallest max_bytes get_resume_context takes: its
// fixed lines (headers, status, notices) need a few hundred bytes.
const MinResumeBytes = 1024

// ReadQueryRequest are read_query's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type ReadQueryRequest struct {
	Query  string `json:"query"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

var readQueryTool = Tool{
	Request: ReadQueryRequest{}, Name: ToolReadQuery, Title: "Read query", Tier: TierRead, Table: true, Describe: describeReadQuery, DescribeReadOnly: describeReadQueryReadOnly,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One read-only SQL statement."},
		ArgQueryLimit,
		ArgOffset,
	},
}

// ListTablesRequest are list_tables's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type ListTablesRequest struct {
	IncludeRowCounts bool `json:"include_row_counts"`
}

var listTablesTool = Tool{
	Request: ListTablesRequest{}, Name: ToolListTables, Title: "List tables", Tier: TierRead, Table: true, Describe: describeListTables,
	Args: []Arg{
		{Name: "include_row_counts", Type: ArgBoolean, Default: fixed(true),
			Doc: "Count each table's rows (a scan each)."},
	},
}

// DescribeTableRequest are describe_table's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type DescribeTableRequest struct {
	Table string `json:"table"`
}

var describeTableTool = Tool{
	Request: DescribeTableRequest{}, Name: ToolDescribeTable, Title: "Describe table", Tier: TierRead, Describe: describeDescribeTable,
	Args: []Arg{
		{Name: "table", Aliases: []string{"table_name"}, Type: ArgString, Required: true,
			Doc: "Table or view name (any letter case)."},
	},
}

// GetSchemaRequest are get_schema's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type GetSchemaRequest struct {
	IncludeSystem bool `json:"include_system"`
}

var getSchemaTool = Tool{
	Request: GetSchemaRequest{}, Name: ToolGetSchema, Title: "Get schema", Tier: TierRead, Describe: describeGetSchema,
	Args: []Arg{
		{Name: "include_system", Type: ArgBoolean,
			Doc: "Also show the server's (and Litestream's) objects."},
	},
}

// SearchTextRequest are search_text's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type SearchTextRequest struct {
	Pattern      string   `json:"pattern"`
	Table        string   `json:"table"`
	Columns      []string `json:"columns"`
	Where        string   `json:"where"`
	KeyColumn    string   `json:"key_column"`
	Limit        int      `json:"limit"`
	IgnoreCase   bool     `json:"ignore_case"`
	FixedStrings bool     `json:"fixed_strings"`
	ContextChars int      `json:"context_chars"`
}

var searchTextTool = Tool{
	Request: SearchTextRequest{}, Name: ToolSearchText, Title: "Search text", Tier: TierRead, Table: true, Describe: describeSearchText,
	Args: []Arg{
		{Name: "pattern", Type: ArgString, Required: true,
			Doc: "Regex (RE2: no lookaround or backreferences)."},
		{Name: "table", Aliases: []string{"table_name"}, Type: ArgString, Required: true, Doc: "Table or view."},
		{Name: "columns", Type: ArgStrings,
			Doc: "Default: every text column."},
		{Name: "where", Type: ArgString,
			Doc: "SQL condition without WHERE, e.g. \"status = 'open'\"."},
		{Name: "key_column", Type: ArgString,
			Doc: "Row key column; default rowid (required for views)."},
		ArgSearchLimit,
		{Name: "ignore_case", Type: ArgBoolean, Doc: "Ignore letter case."},
		{Name: "fixed_strings", Type: ArgBoolean, Doc: "Pattern is a literal, not a regex."},
		ArgContextChars,
	},
}

// VerifyChainRequest are verify_chain's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type VerifyChainRequest struct {
	ExpectedHead string `json:"expected_head"`
}

var verifyChainTool = Tool{
	Request: VerifyChainRequest{}, Name: ToolVerifyChain, Title: "Verify memory chain", Tier: TierRead, Memory: true, Describe: describeVerifyChain,
	Args: []Arg{
		{Name: "expected_head", Type: ArgString,
			Doc: "A head_hash kept outside the database: the chain must still contain it (catches a full rewrite)."},
	},
}

// GetResumeContextRequest are get_resume_context's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type GetResumeContextRequest struct {
	MaxEvents    int    `json:"max_events"`
	MaxBytes     int    `json:"max_bytes"`
	ExcludeKinds string `json:"exclude_kinds"`
}

var resumeTool = Tool{
	Request: GetResumeContextRequest{}, Name: ToolGetResumeContext, Title: "Resume from memory", Tier: TierRead, Memory: true, Describe: describeResume,
	Args: []Arg{
		ArgMaxEvents,
		ArgResumeMaxBytes,
		{Name: "exclude_kinds", Type: ArgString, Doc: "Comma-separated kinds to leave out, e.g. 'note,debug'."},
	},
}

// SearchMemoryRequest are search_memory's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type SearchMemoryRequest struct {
	Query   string   `json:"query"`
	Kinds   []string `json:"kinds"`
	Session string   `json:"session"`
	Since   string   `json:"since"`
	Limit   int      `json:"limit"`
}

var searchMemoryTool = Tool{
	Request: SearchMemoryRequest{}, Name: ToolSearchMemory, Title: "Search memory", Tier: TierRead, Memory: true, Table: true, Describe: describeSearchMemory,
	Args: []Arg{
		{Name: "query", Type: ArgString, Required: true,
			Doc: "Words; \"a phrase\", word* prefix; no other syntax."},
		{Name: "kinds", Type: ArgStrings, Doc: "Only these event kinds; 'checkpoint' for summaries."},
		{Name: "session", Type: ArgString, Doc: "Only what this session id wrote."},
		{Name: "since", Type: ArgString, Doc: "Only what was written since this UTC date or time, e.g. 2026-09-13."},
		ArgMemoryLimit,
	},
}

// WriteQueryRequest are write_query's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type WriteQueryRequest struct {
	Query string `json:"query"`
}

var writeQueryTool = Tool{
	Request: WriteQueryRequest{}, Name: ToolWriteQuery, Title: "Write query", Tier: TierWrite, Table: true, Describe: describeWriteQuery,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One SQL statement; RETURNING is allowed."},
	},
}

// DestructiveQueryRequest are destructive_query's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type DestructiveQueryRequest struct {
	Query  string `json:"query"`
	Reason string `json:"reason"`
}

var destructiveQueryTool = Tool{
	Request: DestructiveQueryRequest{}, Name: ToolDestructiveQuery, Title: "Destructive query (snapshots first)", Tier: TierDestructive, Table: true, Describe: describeDestructiveQuery,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One SQL statement."},
		{Name: "reason", Type: ArgString, Required: true,
			Doc: "Why; shown to the user and audited."},
	},
}

// CreateViewRequest are create_view's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type CreateViewRequest struct {
	Name        string `json:"name"`
	SelectSQL   string `json:"select_sql"`
	Description string `json:"description"`
	Replace     bool   `json:"replace"`
}

var createViewTool = Tool{
	Request: CreateViewRequest{}, Name: ToolCreateView, Title: "Create view", Tier: TierWrite, Describe: describeCreateView,
	Args: []Arg{
		{Name: "name", Type: ArgString, Required: true,
			Doc: "View name: letters, digits, underscores."},
		{Name: "select_sql", Aliases: []string{"query", "sql"}, Type: ArgString, Required: true,
			Doc: "The SELECT the view runs."},
		{Name: "description", Type: ArgString,
			Doc: "What the view answers, in one line."},
		{Name: "replace", Type: ArgBoolean,
			Doc: "Redefine an existing view."},
	},
}

// AppendEventRequest are append_event's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type AppendEventRequest struct {
	Content string `json:"content"`
	Kind    string `json:"kind"`
}

var appendEventTool = Tool{
	Request: AppendEventRequest{}, Name: ToolAppendEvent, Title: "Append memory event", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeAppendEvent,
	Args: []Arg{
		{Name: "content", Type: ArgString, Required: true,
			Doc: "What happened or was decided, as plain text."},
		{Name: "kind", Type: ArgString, Default: fixed("note"),
			Doc: "Label to filter by: note, decision, result, error, todo..."},
	},
}

// RetractEventRequest are retract_event's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type RetractEventRequest struct {
	ID     int    `json:"id"`
	Reason string `json:"reason"`
}

var retractEventTool = Tool{
	Request: RetractEventRequest{}, Name: ToolRetractEvent, Title: "Retract memory event", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeRetractEvent,
	Args: []Arg{
		{Name: "id", Type: ArgInteger, Required: true, Doc: "The event's id."},
		{Name: "reason", Type: ArgString, Required: true, Doc: "Why it is wrong or obsolete."},
	},
}

// CheckpointRequest are checkpoint's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type CheckpointRequest struct {
	Summary string `json:"summary"`
}

var checkpointTool = Tool{
	Request: CheckpointRequest{}, Name: ToolCheckpoint, Title: "Checkpoint memory", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeCheckpoint,
	Args: []Arg{
		{Name: "summary", Type: ArgString, Required: true,
			Doc: "Where the work stands and what comes next."},
	},
}

// SnapshotRequest are snapshot's arguments: a field
// per declared Arg, tagged with its name (TestRequestsMatchTheirArgs).
type SnapshotRequest struct {
	Reason string `json:"reason"`
}

// snapshotTool only adds: rotating out the server's own oldest copy is
// retention, not a change to the agent's data.
var snapshotTool = Tool{
	Request: SnapshotRequest{}, Name: ToolSnapshot, Title: "Snapshot database", Tier: TierWrite, OnlyAdds: true, Describe: describeSnapshot,
	Args: []Arg{
		{Name: "reason", Type: ArgString, Default: fixed("manual"), Doc: "Why; kept in the audit log."},
	},
}
