package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Annotation profiles, read as the MCP spec defines the hints:
// destructiveHint is true when a tool "may perform destructive updates"
// (change or remove what exists) and false when its updates are only
// additive; idempotentHint when calling again with the same arguments has no
// further effect. openWorldHint is false everywhere: the tools touch one local
// file and nothing else. Each profile carries the tool's title, which clients
// show instead of its name (ARCHITECTURE.md, "Tool annotations").
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

// adds is a tool that only adds: an event, a checkpoint, a snapshot file
// (rotating out the server's own oldest copy is retention, not a change to
// the agent's data).
func adds(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
}

// overwrites is a tool that may change what exists: write_query's UPDATE,
// REPLACE and upserts overwrite rows, create_view's replace=true redefines a
// view, and destructive_query deletes and drops. Clients should ask first.
func overwrites(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
}

// Tool titles, for clients that show a title instead of the tool's name.
const (
	titleReadQuery        = "Read query"
	titleListTables       = "List tables"
	titleDescribeTable    = "Describe table"
	titleGetSchema        = "Get schema"
	titleSearchText       = "Search text"
	titleVerifyChain      = "Verify memory chain"
	titleGetResumeContext = "Resume from memory"
	titleWriteQuery       = "Write query"
	titleDestructiveQuery = "Destructive query (snapshots first)"
	titleCreateView       = "Create view"
	titleAppendEvent      = "Append memory event"
	titleCheckpoint       = "Checkpoint memory"
	titleSnapshot         = "Snapshot database"
)

func ptr[T any](v T) *T { return &v }

// bound sets a property's default and bounds in the schema.
func bound(name string, def any, min, max float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[name]
		if def != nil {
			b, _ := json.Marshal(def)
			p.Default = b
		}
		p.Minimum, p.Maximum = &min, &max
	}
}

// defaults sets plain defaults.
func defaults(kv ...any) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for i := 0; i+1 < len(kv); i += 2 {
			b, _ := json.Marshal(kv[i+1])
			s.Properties[kv[i].(string)].Default = b
		}
	}
}

// plainArray types a slice property as "array" alone. The schema inferred
// for a Go slice is ["null","array"], and some clients render a union type
// as a text box and send a string.
func plainArray(name string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[name]
		p.Type, p.Types = "array", nil
	}
}

func both(fs ...func(*jsonschema.Schema)) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, f := range fs {
			f(s)
		}
	}
}

// ReadQueryArgs are read_query's arguments.
type ReadQueryArgs struct {
	Query  string `json:"query" jsonschema:"One SQL statement that only reads: SELECT, WITH ... SELECT, EXPLAIN, or an introspection PRAGMA such as table_info."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Rows to return, 1 to max_rows. The trailer says when more rows exist."`
	Offset int    `json:"offset,omitempty" jsonschema:"Rows to skip before the first one returned, for paging; the trailer names the next offset."`
}

// WriteQueryArgs are write_query's arguments.
type WriteQueryArgs struct {
	Query string `json:"query" jsonschema:"One INSERT, UPDATE, upsert, REPLACE, CREATE TABLE, CREATE INDEX or CREATE VIRTUAL TABLE (fts3/4/5, rtree) statement; RETURNING is allowed."`
}

// DestructiveQueryArgs are destructive_query's arguments.
type DestructiveQueryArgs struct {
	Query  string `json:"query" jsonschema:"One DELETE, DROP, ALTER TABLE or CREATE TRIGGER statement (anything write_query allows works too)."`
	Reason string `json:"reason" jsonschema:"Why this change is needed, in a sentence; stored in the audit log next to the snapshot path."`
}

// ListTablesArgs are list_tables' arguments.
type ListTablesArgs struct {
	IncludeRowCounts bool `json:"include_row_counts,omitempty" jsonschema:"Count the rows of every table (the rows column). Set false on a large database: each count scans its table, and the column is then left empty."`
}

// DescribeTableArgs are describe_table's arguments.
type DescribeTableArgs struct {
	Table string `json:"table" jsonschema:"Name of one table or view, as list_tables shows it (letter case does not matter)."`
}

// GetSchemaArgs are get_schema's arguments.
type GetSchemaArgs struct {
	IncludeSystem bool `json:"include_system,omitempty" jsonschema:"Also show the server's own objects (memory_events, memory_checkpoints, query_log, query_errors and their triggers and index), hidden by default."`
}

// CreateViewArgs are create_view's arguments.
type CreateViewArgs struct {
	Name        string `json:"name" jsonschema:"View name: letters, digits and underscores, not starting with a digit; server object names are refused."`
	SelectSQL   string `json:"select_sql" jsonschema:"The SELECT the view runs (one statement; a trailing ';' is fine). It is checked as a read-only query before anything is stored."`
	Description string `json:"description,omitempty" jsonschema:"What the view answers, in one line; stored inside the view as a '-- description:' comment so get_schema shows it to the next session."`
	Replace     bool   `json:"replace,omitempty" jsonschema:"Redefine an existing view of this name; its previous SQL is kept in query_log."`
}

// AppendEventArgs are append_event's arguments.
type AppendEventArgs struct {
	Content string `json:"content" jsonschema:"What happened or was decided, as plain text; surrounding whitespace is trimmed and it must not be empty."`
	Kind    string `json:"kind,omitempty" jsonschema:"A short label to filter by later, e.g. note, decision, result, error, todo."`
}

// NoArgs is the arguments of a tool that takes none.
type NoArgs struct{}

// CheckpointArgs are checkpoint's arguments.
type CheckpointArgs struct {
	Summary string `json:"summary" jsonschema:"Where the work stands and what comes next, written for the next session; must not be empty."`
}

// VerifyChainArgs are verify_chain's arguments.
type VerifyChainArgs struct {
	ExpectedHead string `json:"expected_head,omitempty" jsonschema:"Optional: a head_hash an earlier verify_chain returned, kept outside the database. The chain must still contain it, which catches a rewrite of the file that recomputed every hash."`
}

// ResumeArgs are get_resume_context's arguments.
type ResumeArgs struct {
	MaxEvents    int    `json:"max_events,omitempty" jsonschema:"How many of the most recent events after the checkpoint to show, 1 to max_rows."`
	ExcludeKinds string `json:"exclude_kinds,omitempty" jsonschema:"Comma-separated event kinds to leave out, e.g. 'note,debug'."`
}

// SearchTextArgs are search_text's arguments.
type SearchTextArgs struct {
	Pattern      string   `json:"pattern" jsonschema:"Regular expression (Rust/RE2 syntax: no lookaround or backreferences), or a literal with fixed_strings=true."`
	Table        string   `json:"table" jsonschema:"Table or view to search."`
	Columns      []string `json:"columns,omitempty" jsonschema:"Columns to search; default: every text column (declared TEXT, CHAR, CLOB or untyped)."`
	Where        string   `json:"where,omitempty" jsonschema:"SQL condition that narrows the rows first, without the WHERE keyword, e.g. \"created > '2026-01-01'\"; runs as a read-only query."`
	KeyColumn    string   `json:"key_column,omitempty" jsonschema:"Column that identifies a row in the results; default rowid. Required for views."`
	Limit        int      `json:"limit,omitempty" jsonschema:"Matching values to show, 1 to max_rows; the trailer gives the total."`
	IgnoreCase   bool     `json:"ignore_case,omitempty" jsonschema:"Match without regard to letter case."`
	FixedStrings bool     `json:"fixed_strings,omitempty" jsonschema:"Treat pattern as a literal string, not a regular expression."`
	ContextChars int      `json:"context_chars,omitempty" jsonschema:"Characters of context on each side of the match in the snippet, 0 to 1000."`
}

// SnapshotArgs are snapshot's arguments.
type SnapshotArgs struct {
	Reason string `json:"reason,omitempty" jsonschema:"Why the snapshot is taken; kept in the audit log."`
}

func register(s *Server, t ports.Tools, o Options) {
	l := o.Limits
	maxRows := float64(l.MaxRows)
	d := describe(l)

	add(s, t, &mcp.Tool{Name: "read_query", Title: titleReadQuery, Description: d.readQuery, Annotations: readOnly(titleReadQuery)},
		ReadQueryArgs{Limit: l.DefaultLimit}, both(bound("limit", l.DefaultLimit, 1, maxRows), bound("offset", 0, 0, 1e15)),
		func(ctx context.Context, in ReadQueryArgs) (string, error) {
			return t.ReadQuery(ctx, ports.ReadQueryRequest{Query: in.Query, Limit: in.Limit, Offset: in.Offset})
		})
	add(s, t, &mcp.Tool{Name: "list_tables", Title: titleListTables, Description: d.listTables, Annotations: readOnly(titleListTables)},
		ListTablesArgs{IncludeRowCounts: true}, defaults("include_row_counts", true),
		func(ctx context.Context, in ListTablesArgs) (string, error) {
			return t.ListTables(ctx, in.IncludeRowCounts)
		})
	add(s, t, &mcp.Tool{Name: "describe_table", Title: titleDescribeTable, Description: d.describeTable, Annotations: readOnly(titleDescribeTable)},
		DescribeTableArgs{}, nil,
		func(ctx context.Context, in DescribeTableArgs) (string, error) { return t.DescribeTable(ctx, in.Table) })
	add(s, t, &mcp.Tool{Name: "get_schema", Title: titleGetSchema, Description: d.getSchema, Annotations: readOnly(titleGetSchema)},
		GetSchemaArgs{}, defaults("include_system", false),
		func(ctx context.Context, in GetSchemaArgs) (string, error) { return t.GetSchema(ctx, in.IncludeSystem) })
	add(s, t, &mcp.Tool{Name: "search_text", Title: titleSearchText, Description: d.searchText, Annotations: readOnly(titleSearchText)},
		SearchTextArgs{Limit: l.DefaultLimit, ContextChars: 80},
		both(bound("limit", l.DefaultLimit, 1, maxRows), bound("context_chars", 80, 0, 1000), defaults("ignore_case", false, "fixed_strings", false), plainArray("columns")),
		func(ctx context.Context, in SearchTextArgs) (string, error) {
			return t.SearchText(ctx, ports.SearchTextRequest{
				Pattern: in.Pattern, Table: in.Table, Columns: in.Columns, Where: in.Where, KeyColumn: in.KeyColumn,
				Limit: in.Limit, IgnoreCase: in.IgnoreCase, FixedStrings: in.FixedStrings, ContextChars: in.ContextChars,
			})
		})
	if !o.ReadOnly || o.Memory {
		add(s, t, &mcp.Tool{Name: "verify_chain", Title: titleVerifyChain, Description: d.verifyChain, Annotations: readOnly(titleVerifyChain)},
			VerifyChainArgs{}, defaults("expected_head", ""),
			func(ctx context.Context, in VerifyChainArgs) (string, error) {
				return t.VerifyChain(ctx, in.ExpectedHead)
			})
		add(s, t, &mcp.Tool{Name: "get_resume_context", Title: titleGetResumeContext, Description: d.resume, Annotations: readOnly(titleGetResumeContext)},
			ResumeArgs{MaxEvents: 50}, both(bound("max_events", min(50, l.MaxRows), 1, maxRows), defaults("exclude_kinds", "")),
			func(ctx context.Context, in ResumeArgs) (string, error) {
				return t.GetResumeContext(ctx, in.MaxEvents, in.ExcludeKinds)
			})
	}
	if o.ReadOnly {
		return
	}
	add(s, t, &mcp.Tool{Name: "write_query", Title: titleWriteQuery, Description: d.writeQuery, Annotations: overwrites(titleWriteQuery)},
		WriteQueryArgs{}, nil,
		func(ctx context.Context, in WriteQueryArgs) (string, error) { return t.WriteQuery(ctx, in.Query) })
	add(s, t, &mcp.Tool{Name: "destructive_query", Title: titleDestructiveQuery, Description: d.destructiveQuery, Annotations: overwrites(titleDestructiveQuery)},
		DestructiveQueryArgs{}, nil,
		func(ctx context.Context, in DestructiveQueryArgs) (string, error) {
			return t.DestructiveQuery(ctx, in.Query, in.Reason)
		})
	add(s, t, &mcp.Tool{Name: "create_view", Title: titleCreateView, Description: d.createView, Annotations: overwrites(titleCreateView)},
		CreateViewArgs{}, defaults("description", "", "replace", false),
		func(ctx context.Context, in CreateViewArgs) (string, error) {
			return t.CreateView(ctx, ports.CreateViewRequest{Name: in.Name, SelectSQL: in.SelectSQL, Description: in.Description, Replace: in.Replace})
		})
	add(s, t, &mcp.Tool{Name: "append_event", Title: titleAppendEvent, Description: d.appendEvent, Annotations: adds(titleAppendEvent)},
		AppendEventArgs{Kind: "note"}, defaults("kind", "note"),
		func(ctx context.Context, in AppendEventArgs) (string, error) {
			return t.AppendEvent(ctx, in.Content, in.Kind)
		})
	add(s, t, &mcp.Tool{Name: "checkpoint", Title: titleCheckpoint, Description: d.checkpoint, Annotations: adds(titleCheckpoint)},
		CheckpointArgs{}, nil,
		func(ctx context.Context, in CheckpointArgs) (string, error) { return t.Checkpoint(ctx, in.Summary) })
	add(s, t, &mcp.Tool{Name: "snapshot", Title: titleSnapshot, Description: d.snapshot, Annotations: adds(titleSnapshot)},
		SnapshotArgs{Reason: "manual"}, defaults("reason", "manual"),
		func(ctx context.Context, in SnapshotArgs) (string, error) { return t.Snapshot(ctx, in.Reason) })
}
