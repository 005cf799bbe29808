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

var readQueryTool = Tool{
	Name: ToolReadQuery, Title: "Read query", Tier: TierRead, Table: true, Describe: describeReadQuery, DescribeReadOnly: describeReadQueryReadOnly,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One read-only SQL statement."},
		ArgQueryLimit,
		ArgOffset,
	},
}

var listTablesTool = Tool{
	Name: ToolListTables, Title: "List tables", Tier: TierRead, Table: true, Describe: describeListTables,
	Args: []Arg{
		{Name: "include_row_counts", Type: ArgBoolean, Default: fixed(true),
			Doc: "Count each table's rows (a scan each)."},
	},
}

var describeTableTool = Tool{
	Name: ToolDescribeTable, Title: "Describe table", Tier: TierRead, Describe: describeDescribeTable,
	Args: []Arg{
		{Name: "table", Aliases: []string{"table_name"}, Type: ArgString, Required: true,
			Doc: "Table or view name (any letter case)."},
	},
}

var getSchemaTool = Tool{
	Name: ToolGetSchema, Title: "Get schema", Tier: TierRead, Describe: describeGetSchema,
	Args: []Arg{
		{Name: "include_system", Type: ArgBoolean,
			Doc: "Also show the server's (and Litestream's) objects."},
	},
}

var searchTextTool = Tool{
	Name: ToolSearchText, Title: "Search text", Tier: TierRead, Table: true, Describe: describeSearchText,
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

var verifyChainTool = Tool{
	Name: ToolVerifyChain, Title: "Verify memory chain", Tier: TierRead, Memory: true, Describe: describeVerifyChain,
	Args: []Arg{
		{Name: "expected_head", Type: ArgString,
			Doc: "A head_hash kept outside the database: the chain must still contain it (catches a full rewrite)."},
	},
}

var resumeTool = Tool{
	Name: ToolGetResumeContext, Title: "Resume from memory", Tier: TierRead, Memory: true, Describe: describeResume,
	Args: []Arg{
		ArgMaxEvents,
		ArgResumeMaxBytes,
		{Name: "exclude_kinds", Type: ArgString, Doc: "Comma-separated kinds to leave out, e.g. 'note,debug'."},
	},
}

var searchMemoryTool = Tool{
	Name: ToolSearchMemory, Title: "Search memory", Tier: TierRead, Memory: true, Table: true, Describe: describeSearchMemory,
	Args: []Arg{
		{Name: "query", Type: ArgString, Required: true,
			Doc: "Words; \"a phrase\", word* prefix; no other syntax."},
		{Name: "kinds", Type: ArgStrings, Doc: "Only these event kinds; 'checkpoint' for summaries."},
		{Name: "session", Type: ArgString, Doc: "Only what this session id wrote."},
		{Name: "since", Type: ArgString, Doc: "Only what was written since this UTC date or time, e.g. 2026-09-13."},
		ArgMemoryLimit,
	},
}

var writeQueryTool = Tool{
	Name: ToolWriteQuery, Title: "Write query", Tier: TierWrite, Table: true, Describe: describeWriteQuery,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One SQL statement; RETURNING is allowed."},
	},
}

var destructiveQueryTool = Tool{
	Name: ToolDestructiveQuery, Title: "Destructive query (snapshots first)", Tier: TierDestructive, Table: true, Describe: describeDestructiveQuery,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One SQL statement."},
		{Name: "reason", Type: ArgString, Required: true,
			Doc: "Why; shown to the user and audited."},
	},
}

var createViewTool = Tool{
	Name: ToolCreateView, Title: "Create view", Tier: TierWrite, Describe: describeCreateView,
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

var appendEventTool = Tool{
	Name: ToolAppendEvent, Title: "Append memory event", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeAppendEvent,
	Args: []Arg{
		{Name: "content", Type: ArgString, Required: true,
			Doc: "What happened or was decided, as plain text."},
		{Name: "kind", Type: ArgString, Default: fixed("note"),
			Doc: "Label to filter by: note, decision, result, error, todo..."},
	},
}

var retractEventTool = Tool{
	Name: ToolRetractEvent, Title: "Retract memory event", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeRetractEvent,
	Args: []Arg{
		{Name: "id", Type: ArgInteger, Required: true, Doc: "The event's id."},
		{Name: "reason", Type: ArgString, Required: true, Doc: "Why it is wrong or obsolete."},
	},
}

var checkpointTool = Tool{
	Name: ToolCheckpoint, Title: "Checkpoint memory", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeCheckpoint,
	Args: []Arg{
		{Name: "summary", Type: ArgString, Required: true,
			Doc: "Where the work stands and what comes next."},
	},
}

// snapshotTool only adds: rotating out the server's own oldest copy is
// retention, not a change to the agent's data.
var snapshotTool = Tool{
	Name: ToolSnapshot, Title: "Snapshot database", Tier: TierWrite, OnlyAdds: true, Describe: describeSnapshot,
	Args: []Arg{
		{Name: "reason", Type: ArgString, Default: fixed("manual"), Doc: "Why; kept in the audit log."},
	},
}
