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
		Doc: "Rows to return, 1 to max_rows. The trailer says when more rows exist."}
	// ArgOffset is read_query's paging offset.
	ArgOffset = Arg{Name: "offset", Type: ArgInteger, Default: fixed(0), Bounds: func(Limits) (int, int) { return 0, MaxOffset },
		Doc: "Rows to skip before the first one returned, for paging; the trailer names the next offset."}
	// ArgSearchLimit is how many matching values search_text shows.
	ArgSearchLimit = Arg{Name: "limit", Type: ArgInteger, Default: defaultLimit, Bounds: rowLimit,
		Doc: "Matching values to show, 1 to max_rows; the trailer gives the total."}
	// ArgContextChars is the context on each side of a search_text match.
	ArgContextChars = Arg{Name: "context_chars", Type: ArgInteger, Default: fixed(80), Bounds: func(Limits) (int, int) { return 0, 1000 },
		Doc: "Characters of context on each side of the match in the snippet, 0 to 1000."}
	// ArgMaxEvents is how many events get_resume_context shows: 50, or
	// --max-rows when that is smaller.
	ArgMaxEvents = Arg{Name: "max_events", Type: ArgInteger, Default: func(l Limits) any { return min(50, l.MaxRows) }, Bounds: rowLimit,
		Doc: "How many of the most recent events after the checkpoint to show, 1 to max_rows."}
)

var readQueryTool = Tool{
	Name: ToolReadQuery, Title: "Read query", Tier: TierRead, Table: true, Describe: describeReadQuery,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One SQL statement that only reads: SELECT, WITH ... SELECT, EXPLAIN, or an introspection PRAGMA such as table_info."},
		ArgQueryLimit,
		ArgOffset,
	},
}

var listTablesTool = Tool{
	Name: ToolListTables, Title: "List tables", Tier: TierRead, Table: true, Describe: describeListTables,
	Args: []Arg{
		{Name: "include_row_counts", Type: ArgBoolean, Default: fixed(true),
			Doc: "Count the rows of every table (the rows column). Set false on a large database: each count scans its table, and the column is then left empty."},
	},
}

var describeTableTool = Tool{
	Name: ToolDescribeTable, Title: "Describe table", Tier: TierRead, Describe: describeDescribeTable,
	Args: []Arg{
		{Name: "table", Aliases: []string{"table_name"}, Type: ArgString, Required: true,
			Doc: "Name of one table or view, as " + ToolListTables + " shows it (letter case does not matter)."},
	},
}

var getSchemaTool = Tool{
	Name: ToolGetSchema, Title: "Get schema", Tier: TierRead, Describe: describeGetSchema,
	Args: []Arg{
		{Name: "include_system", Type: ArgBoolean, Default: fixed(false),
			Doc: "Also show the server's own objects (memory_events, memory_checkpoints, query_log, query_errors and their triggers and index), hidden by default."},
	},
}

var searchTextTool = Tool{
	Name: ToolSearchText, Title: "Search text", Tier: TierRead, Table: true, Describe: describeSearchText,
	Args: []Arg{
		{Name: "pattern", Type: ArgString, Required: true,
			Doc: "Regular expression (Rust/RE2 syntax: no lookaround or backreferences), or a literal with fixed_strings=true."},
		{Name: "table", Aliases: []string{"table_name"}, Type: ArgString, Required: true, Doc: "Table or view to search."},
		{Name: "columns", Type: ArgStrings,
			Doc: "Columns to search; default: every text column (declared TEXT, CHAR, CLOB or untyped)."},
		{Name: "where", Type: ArgString,
			Doc: "SQL condition that narrows the rows first, without the WHERE keyword, e.g. \"created > '2026-01-01'\"; runs as a read-only query."},
		{Name: "key_column", Type: ArgString,
			Doc: "Column that identifies a row in the results; default rowid. Required for views."},
		ArgSearchLimit,
		{Name: "ignore_case", Type: ArgBoolean, Default: fixed(false), Doc: "Match without regard to letter case."},
		{Name: "fixed_strings", Type: ArgBoolean, Default: fixed(false), Doc: "Treat pattern as a literal string, not a regular expression."},
		ArgContextChars,
	},
}

var verifyChainTool = Tool{
	Name: ToolVerifyChain, Title: "Verify memory chain", Tier: TierRead, Memory: true, Describe: describeVerifyChain,
	Args: []Arg{
		{Name: "expected_head", Type: ArgString, Default: fixed(""),
			Doc: "Optional: a head_hash an earlier " + ToolVerifyChain + " returned, kept outside the database. The chain must still contain it, which catches a rewrite of the file that recomputed every hash."},
	},
}

var resumeTool = Tool{
	Name: ToolGetResumeContext, Title: "Resume from memory", Tier: TierRead, Memory: true, Describe: describeResume,
	Args: []Arg{
		ArgMaxEvents,
		{Name: "exclude_kinds", Type: ArgString, Default: fixed(""), Doc: "Comma-separated event kinds to leave out, e.g. 'note,debug'."},
	},
}

var writeQueryTool = Tool{
	Name: ToolWriteQuery, Title: "Write query", Tier: TierWrite, Table: true, Describe: describeWriteQuery,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One INSERT, UPDATE, upsert, REPLACE, CREATE TABLE, CREATE INDEX or CREATE VIRTUAL TABLE (fts3/4/5, rtree) statement; RETURNING is allowed."},
	},
}

var destructiveQueryTool = Tool{
	Name: ToolDestructiveQuery, Title: "Destructive query (snapshots first)", Tier: TierDestructive, Table: true, Describe: describeDestructiveQuery,
	Args: []Arg{
		{Name: "query", Aliases: []string{"sql"}, Type: ArgString, Required: true,
			Doc: "One DELETE, DROP, ALTER TABLE or CREATE TRIGGER statement (anything " + ToolWriteQuery + " allows works too)."},
		{Name: "reason", Type: ArgString, Required: true,
			Doc: "Why this change is needed, in a sentence; stored in the audit log next to the snapshot path."},
	},
}

var createViewTool = Tool{
	Name: ToolCreateView, Title: "Create view", Tier: TierWrite, Describe: describeCreateView,
	Args: []Arg{
		{Name: "name", Type: ArgString, Required: true,
			Doc: "View name: letters, digits and underscores, not starting with a digit; server object names are refused."},
		{Name: "select_sql", Aliases: []string{"query", "sql"}, Type: ArgString, Required: true,
			Doc: "The SELECT the view runs (one statement; a trailing ';' is fine). It is checked as a read-only query before anything is stored."},
		{Name: "description", Type: ArgString, Default: fixed(""),
			Doc: "What the view answers, in one line; stored inside the view as a '-- description:' comment so " + ToolGetSchema + " shows it to the next session."},
		{Name: "replace", Type: ArgBoolean, Default: fixed(false),
			Doc: "Redefine an existing view of this name; its previous SQL is kept in query_log."},
	},
}

var appendEventTool = Tool{
	Name: ToolAppendEvent, Title: "Append memory event", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeAppendEvent,
	Args: []Arg{
		{Name: "content", Type: ArgString, Required: true,
			Doc: "What happened or was decided, as plain text; surrounding whitespace is trimmed and it must not be empty."},
		{Name: "kind", Type: ArgString, Default: fixed("note"),
			Doc: "A short label to filter by later, e.g. note, decision, result, error, todo."},
	},
}

var checkpointTool = Tool{
	Name: ToolCheckpoint, Title: "Checkpoint memory", Tier: TierWrite, OnlyAdds: true, Memory: true, Describe: describeCheckpoint,
	Args: []Arg{
		{Name: "summary", Type: ArgString, Required: true,
			Doc: "Where the work stands and what comes next, written for the next session; must not be empty."},
	},
}

// snapshotTool only adds: rotating out the server's own oldest copy is
// retention, not a change to the agent's data.
var snapshotTool = Tool{
	Name: ToolSnapshot, Title: "Snapshot database", Tier: TierWrite, OnlyAdds: true, Describe: describeSnapshot,
	Args: []Arg{
		{Name: "reason", Type: ArgString, Default: fixed("manual"), Doc: "Why the snapshot is taken; kept in the audit log."},
	},
}
