package domain

import "strconv"

// The fifteen tools' names. These constants are the only place in the
// server's code that spells a tool's name (test/arch checks it): the
// declarations (tools.go), the audit rows, the driving adapter, and every
// text the agent reads that names a tool (descriptions, refusals, advice,
// the connect-time instructions) read them. Only cmd/'s text for people
// (help, benchmark labels) spells names, as README does.
const (
	ToolReadQuery        = "read_query"
	ToolListTables       = "list_tables"
	ToolDescribeTable    = "describe_table"
	ToolGetSchema        = "get_schema"
	ToolSearchText       = "search_text"
	ToolVerifyChain      = "verify_chain"
	ToolGetResumeContext = "get_resume_context"
	ToolSearchMemory     = "search_memory"
	ToolWriteQuery       = "write_query"
	ToolDestructiveQuery = "destructive_query"
	ToolCreateView       = "create_view"
	ToolAppendEvent      = "append_event"
	ToolRetractEvent     = "retract_event"
	ToolCheckpoint       = "checkpoint"
	ToolSnapshot         = "snapshot"
)

// Tool declares one tool: everything a front end shows about it and
// everything the core checks about its arguments, written once. The MCP
// schemas, the argument decoding, the audit's tool names and the set of
// tools each mode offers all read it (docs/decisions.md#tool-declarations).
type Tool struct {
	// Request is the zero value of the tool's request type, the struct
	// its method of the inbound port takes: one field per Arg, in the
	// same order, tagged `json:"<Arg.Name>"`, of the Arg's Go type (string,
	// int, bool, []string). The driving adapter decodes a call into it
	// (docs/decisions.md#one-typed-request-per-tool).
	Request any
	// Name is the tool's name, one of the Tool* constants.
	Name string
	// Title is what clients show instead of the name.
	Title string
	// Tier is the most a call may change: TierRead tools change nothing
	// (and are the only ones a read-only server offers); TierWrite and
	// TierDestructive tools write.
	Tier Tier
	// OnlyAdds marks a writing tool whose changes only add (an event, a
	// checkpoint, a snapshot file): it never changes or removes what
	// exists. A writing tool without it may overwrite or delete.
	OnlyAdds bool
	// Memory marks a tool that needs the memory tables: a read-only
	// server offers it only when the file has them.
	Memory bool
	// Table marks a tool that answers with one CSV table (or, for a write
	// without RETURNING, none).
	Table bool
	// Args are the tool's arguments.
	Args []Arg
	// Describe is the tool's description, quoting the live limits: what it
	// does to the world first, then what it returns and how it fails, then
	// when to use a sibling instead.
	Describe func(Limits) string
	// DescribeReadOnly, when set, is the description a read-only server
	// shows instead: one that names no writing tool, which it does not
	// offer.
	DescribeReadOnly func(Limits) string
}

// Description is the description the server shows: the read-only one on a
// read-only server, when the tool has one.
func (t Tool) Description(l Limits, readOnly bool) string {
	if readOnly && t.DescribeReadOnly != nil {
		return t.DescribeReadOnly(l)
	}
	return t.Describe(l)
}

// ReadOnly reports whether the tool changes nothing: calling it again
// with the same arguments has no further effect.
func (t Tool) ReadOnly() bool { return t.Tier == TierRead }

// Overwrites reports whether the tool may change or remove what exists
// (MCP's destructiveHint).
func (t Tool) Overwrites() bool { return !t.ReadOnly() && !t.OnlyAdds }

// ArgType is the JSON type of an argument.
type ArgType int

// The argument types.
const (
	// ArgString is a JSON string.
	ArgString ArgType = iota + 1
	// ArgInteger is a JSON integer (a Go int).
	ArgInteger
	// ArgBoolean is true or false.
	ArgBoolean
	// ArgStrings is an array of strings.
	ArgStrings
)

// Arg declares one argument of a tool.
type Arg struct {
	// Name is the argument's name.
	Name string
	// Aliases are other names a call may use for it, the ones an agent
	// naturally reaches for (query for a view's SELECT). They are not in
	// the schema: only the decoder accepts them, and a call that gives
	// the name and an alias is an argument error.
	Aliases []string
	// Type is its JSON type.
	Type ArgType
	// Required arguments must be given (and not null).
	Required bool
	// Doc says what to pass, for the agent.
	Doc string
	// Default is the value a call that leaves the argument out gets, as a
	// function of the limits; its Go type is the Type's (string, int,
	// bool). nil means the type's zero value, which clients are not shown.
	Default func(Limits) any
	// Bounds is the inclusive range of an integer argument, as a function
	// of the limits; nil when any value is accepted.
	Bounds func(Limits) (min, max int)
}

// Value is the argument's value in a call that leaves it out.
func (a Arg) Value(l Limits) any {
	if a.Default != nil {
		return a.Default(l)
	}
	switch a.Type {
	case ArgInteger:
		return 0
	case ArgBoolean:
		return false
	case ArgStrings:
		return []string(nil)
	}
	return ""
}

// Check reports an integer argument outside its bounds as an
// [ErrInvalidArgument] that names the argument and its range.
func (a Arg) Check(l Limits, v int) error {
	if a.Bounds == nil {
		return nil
	}
	lo, hi := a.Bounds(l)
	if v < lo || v > hi {
		return Errorf(ErrInvalidArgument, "%s must be between %d and %d, got %d", a.Name, lo, hi, v)
	}
	return nil
}

// Tools returns the declarations of every tool, in the order front ends
// list them.
func Tools() []Tool {
	return []Tool{
		readQueryTool, listTablesTool, describeTableTool, getSchemaTool, searchTextTool, verifyChainTool, resumeTool,
		searchMemoryTool, writeQueryTool, destructiveQueryTool, createViewTool, appendEventTool, retractEventTool,
		checkpointTool, snapshotTool,
	}
}

// OfferedTools returns the tools a server offers: every tool, or in
// read-only mode the TierRead ones, those needing the memory tables only
// when memory says the file has them.
func OfferedTools(readOnly, memory bool) []Tool {
	var out []Tool
	for _, t := range Tools() {
		if readOnly && (!t.ReadOnly() || t.Memory && !memory) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Tool names the tool whose statements run in the tier, as refusals
// mention it.
func (t Tier) Tool() string {
	switch t {
	case TierRead:
		return ToolReadQuery
	case TierWrite:
		return ToolWriteQuery
	case TierDestructive:
		return ToolDestructiveQuery
	}
	return "tier " + strconv.Itoa(int(t))
}

// fixed is a default that does not depend on the limits.
func fixed(v any) func(Limits) any { return func(Limits) any { return v } }
