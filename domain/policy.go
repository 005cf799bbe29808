package domain

import (
	"fmt"
	"strings"
)

// AuthRequest is one call of SQLite's authorizer, with its arguments as the
// driver passes them (an SQL NULL arrives as "").
type AuthRequest struct {
	// Action is what SQLite asks to do.
	Action Action
	// Arg1 and Arg2 are the action's arguments (see [Policy.Check]).
	Arg1, Arg2 string
	// Database is the schema the action touches ("main", "temp", ...).
	Database string
	// Trigger is the innermost trigger or view responsible, or "".
	Trigger string
	// Running is true when SQLite asks while a statement runs rather than
	// while it compiles: VACUUM attaches its scratch database then, and the
	// FTS5 and R*Tree modules prepare statements on their shadow tables then.
	Running bool
}

// Policy decides which authorizer actions one tier allows (docs/decisions.md#policy,
// with #fixes-over-the-reference and #details). The zero value refuses everything; set Tier.
type Policy struct {
	// Tier is the tier whose rules apply.
	Tier Tier
	// Origin names the statement in refusals when it is not the tier's own
	// tool's (create_view checks its SELECT under the read tier); empty means
	// the tier's tool. See [WithOrigin].
	Origin string
	// ReadOnly is set when the server offers only the read tools: a
	// refusal then names no writing tool, since the agent cannot call one
	// (docs/decisions.md#refusals-name-only-offered-tools).
	ReadOnly bool
	// IsShadow reports whether table is a real virtual-table shadow table
	// according to SQLite itself (PRAGMA table_list type "shadow"), never by
	// its name (docs/decisions.md#fixes-over-the-reference, item 2). It is consulted in every tier; nil means there are none.
	IsShadow func(table string) bool
}

// ReadOnlyServer ends a refusal in read-only mode, where no tool that
// writes is offered to be named instead.
const ReadOnlyServer = "this server is read-only and offers no tool that writes"

// Denial messages. Each names the tool to use next where there is one
// offered: the ...RO forms are the read-only server's.
const (
	msgLoadExtension  = "load_extension() is not allowed"
	msgPragma         = "PRAGMA %s is not allowed; allowed are the introspection pragmas (table_info, index_list, foreign_key_list, ...) and, without a value, reads of the connection's state (journal_mode, user_version, page_size, ...)"
	msgPragmaSet      = "PRAGMA %s can only be read: setting it is not allowed (the server manages the connection); run PRAGMA %s without a value or parentheses to read it"
	msgDatabaseList   = "PRAGMA %s is not allowed: it shows the database file's absolute path; the server works on its one database file, schema main (PRAGMA table_list lists its tables)"
	msgServerTable    = "%s is managed by the server and is append-only; it cannot be changed through SQL tools"
	msgServerView     = "%s is a view managed by the server; it cannot be changed through SQL tools"
	msgInternal       = "%s is internal to SQLite; it cannot be changed through SQL tools"
	msgUseWrite       = "%s is not allowed in %s; use " + ToolWriteQuery
	msgUseDestructive = "%s is not allowed in %s; use " + ToolDestructiveQuery + " (it snapshots the database first)"
	msgNotInReadOnly  = "%s is not allowed in %s: " + ReadOnlyServer
	msgCreateView     = "CREATE VIEW is not allowed here; use the " + ToolCreateView + " tool, which also stores a description"
	msgCreateViewRO   = "CREATE VIEW is not allowed: " + ReadOnlyServer
	msgModule         = "virtual table module %s is not allowed (allowed: fts3, fts4, fts5, rtree)"
	msgAttach         = "ATTACH is not allowed; the server works on its one database file"
	msgDetach         = "DETACH is not allowed; the server works on its one database file"
	msgVacuum         = "VACUUM is not allowed: the server manages the database file; use the " + ToolSnapshot + " tool for a copy"
	msgVacuumRO       = "VACUUM is not allowed: the server manages the database file, and " + ReadOnlyServer
	msgTransaction    = "transaction control is handled by the server; send one statement at a time"
	msgTemp           = "temporary objects are not allowed: they would vanish with the call; create a regular table with " + ToolWriteQuery + " instead"
	msgTempRO         = "temporary objects are not allowed: they would vanish with the call, and " + ReadOnlyServer + "; use a WITH clause for intermediate results"
	msgOther          = "%s is not allowed"
	msgNoTier         = "the statement policy has no valid tier (%d); this is a server bug"
)

// Check returns "" when the policy allows r, otherwise the reason shown to
// the agent. The adapter keeps the first reason of a statement, because
// SQLite itself only reports "not authorized".
//
// A trigger's body is authorized when the trigger fires, as part of the
// triggering statement, like any other action: a body the tier forbids is
// refused then. Requests that arrive while a statement runs are decided as at
// compile time, with two exceptions: an ATTACH or DETACH while running comes
// from VACUUM and gets VACUUM's own message (docs/decisions.md#fixes-over-the-reference, item 10), and in the write tier a
// DELETE prepared while running by a virtual-table module is allowed (see
// checkWrite). Arguments follow sqlite3.h: the table for INSERT, UPDATE,
// DELETE and READ; the pragma name and value for PRAGMA; the function name in
// Arg2 for FUNCTION; the object then its table for the index and trigger
// actions; the schema then the table for ALTER TABLE. Pair Check with
// [Policy.CheckSQL], which sees what the authorizer cannot.
func (p Policy) Check(r AuthRequest) string {
	if !p.Tier.valid() {
		return fmt.Sprintf(msgNoTier, int(p.Tier))
	}
	switch r.Action {
	case ActionSelect, ActionRead, ActionRecursive:
		return ""
	case ActionFunction:
		if equalFoldASCII(r.Arg2, "load_extension") {
			return msgLoadExtension
		}
		return ""
	case ActionPragma:
		return checkPragma(r.Arg1, r.Arg2 != "")
	case ActionAttach, ActionDetach:
		switch {
		case r.Running:
			return p.pick(msgVacuum, msgVacuumRO)
		case r.Action == ActionAttach:
			return msgAttach
		}
		return msgDetach
	case ActionTransaction, ActionSavepoint:
		return msgTransaction
	}
	if _, known := actionLabels[r.Action]; !known {
		return fmt.Sprintf(msgOther, r.Action.Label())
	}
	// Every remaining action creates, changes or drops something. In the temp
	// schema that is a temporary object however it was spelled: CREATE TEMP
	// TABLE, CREATE TABLE temp.x (SQLite reports CREATE_TABLE in "temp"), or
	// the sqlite_master bookkeeping write that comes first in both.
	// One exception: ALTER TABLE RENAME and DROP COLUMN (destructive tier
	// only) always rewrite the temp schema's own table to fix references;
	// no temporary object can exist to be changed by it.
	tempBookkeeping := p.Tier == TierDestructive && r.Action == ActionUpdate && isSchemaTable(r.Arg1)
	if r.Action.isTempObject() || (equalFoldASCII(r.Database, "temp") && !tempBookkeeping) {
		return p.pick(msgTemp, msgTempRO)
	}
	switch r.Action {
	case ActionInsert, ActionUpdate, ActionDelete:
		return p.checkWrite(r)
	case ActionCreateView:
		return p.pick(msgCreateView, msgCreateViewRO)
	case ActionCreateTable, ActionCreateIndex, ActionReindex, ActionAnalyze:
		return p.checkAdditive(r)
	case ActionCreateVTable:
		return p.checkVTable(r)
	}
	return p.checkDestructive(r)
}

// checkWrite decides INSERT, UPDATE and DELETE on table Arg1.
func (p Policy) checkWrite(r AuthRequest) string {
	table, label := r.Arg1, r.Action.Label()
	switch {
	case IsServerObject(table):
		return serverObjectMessage(table)
	case IsReplicationName(table):
		return replicationMessage(table)
	case isSchemaTable(table):
		// DDL and schema loading write these in every tier; editing the
		// schema directly would need writable_schema, which is refused.
		return ""
	case isStatTable(table):
		// ANALYZE rewrites its statistics with a DELETE and INSERTs, so the
		// tier that allows ANALYZE allows these writes, DELETE included.
		if p.Tier == TierRead {
			return p.use(msgUseWrite, label)
		}
		return ""
	case IsInternalName(table) && !equalFoldASCII(table, "sqlite_sequence"):
		// sqlite_dbpage and the like: raw pages, never data. sqlite_sequence
		// (AUTOINCREMENT's counters) is treated as an ordinary table, so
		// resetting a counter with DELETE needs destructive_query.
		return fmt.Sprintf(msgInternal, table)
	case p.IsShadow != nil && p.IsShadow(table):
		// A real shadow table is written only by its own module: defensive
		// mode refuses direct writes to it, and the read tier is query_only.
		// R*Tree prepares INSERT and DELETE on its shadow tables when it
		// connects, so even reading an rtree needs this in read_query.
		return ""
	}
	if r.Action != ActionDelete {
		if p.Tier == TierRead {
			return p.use(msgUseWrite, label)
		}
		return ""
	}
	switch {
	case p.Tier == TierDestructive:
		return ""
	case p.Tier == TierWrite && r.Running && r.Trigger == "":
		// Only SQLite's own modules prepare statements while one runs, and
		// what they delete from is their shadow tables. CREATE VIRTUAL TABLE
		// ... USING rtree prepares its DELETEs while it runs, on shadow
		// tables the same statement has just created, which no list made
		// before the statement can hold. SQLite's defensive mode draws the
		// same line: shadow tables are writable while a statement runs.
		return ""
	}
	return p.use(msgUseDestructive, label)
}

// checkAdditive decides CREATE TABLE, CREATE INDEX, REINDEX and ANALYZE.
func (p Policy) checkAdditive(r AuthRequest) string {
	target := ""
	switch r.Action {
	case ActionCreateTable:
		target = r.Arg1
	case ActionCreateIndex:
		target = r.Arg2
	}
	if IsServerObject(target) {
		return serverObjectMessage(target)
	}
	if IsReplicationName(target) {
		return replicationMessage(target)
	}
	if p.Tier == TierRead {
		return p.use(msgUseWrite, r.Action.Label())
	}
	return ""
}

// checkVTable decides CREATE VIRTUAL TABLE Arg1 USING module Arg2. SQLite
// asks before it looks the module up, so an unknown module is refused here.
func (p Policy) checkVTable(r AuthRequest) string {
	switch {
	case IsServerObject(r.Arg1):
		return serverObjectMessage(r.Arg1)
	case IsReplicationName(r.Arg1):
		return replicationMessage(r.Arg1)
	case p.Tier == TierRead:
		return p.use(msgUseWrite, r.Action.Label())
	case !isAllowedModule(r.Arg2):
		return fmt.Sprintf(msgModule, Quote(r.Arg2))
	}
	return ""
}

// checkDestructive decides the DROP actions, ALTER TABLE and CREATE TRIGGER.
func (p Policy) checkDestructive(r AuthRequest) string {
	target := r.Arg1
	switch r.Action {
	case ActionCreateTrigger, ActionDropIndex, ActionDropTrigger, ActionAlterTable:
		target = r.Arg2
	}
	switch {
	case IsServerObject(target):
		return serverObjectMessage(target)
	case IsReplicationName(target):
		return replicationMessage(target)
	case p.Tier != TierDestructive:
		return p.use(msgUseDestructive, r.Action.Label())
	}
	return ""
}

// CheckSQL returns the refusal, or "", for what the authorizer cannot see in
// sql, one statement about to be compiled. Call it before compiling agent SQL.
//
//   - A PRAGMA given a value, when the pragma is not an introspection one. The
//     driver hands a pragma whose value is the empty string to the authorizer
//     exactly like a value-less one (both arrive as ""), yet SQLite applies the
//     empty string: query_only and synchronous turn off, journal_mode becomes
//     delete, busy_timeout drops to 0.
//   - VACUUM (and VACUUM INTO). Its ATTACH only reaches the authorizer when
//     the statement runs outside a transaction; inside the write tiers' BEGIN
//     IMMEDIATE, SQLite refuses it first with "cannot VACUUM from within a
//     transaction". Both paths end in the same message (docs/decisions.md#fixes-over-the-reference, item 10).
func (p Policy) CheckSQL(sql string) string {
	keyword, name, hasValue := statementHead(sql)
	switch {
	case equalFoldASCII(keyword, "vacuum"):
		return p.pick(msgVacuum, msgVacuumRO)
	case equalFoldASCII(keyword, "pragma") && name != "" && hasValue:
		return checkPragma(name, true)
	}
	return ""
}

// checkPragma allows introspection pragmas always and read-state pragmas
// without a value; the message repeats the name as SQLite passed it.
func checkPragma(name string, hasValue bool) string {
	n := toLowerASCII(name)
	if n == "database_list" {
		// The one pragma that names a file, whatever shape the query gives
		// the value (substr, hex, a join): refused, not scrubbed (docs/decisions.md#errors).
		return fmt.Sprintf(msgDatabaseList, name)
	}
	switch {
	case introspectionPragmas[n] || (!hasValue && readStatePragmas[n]):
		return ""
	case readStatePragmas[n]:
		return fmt.Sprintf(msgPragmaSet, name, name)
	}
	return fmt.Sprintf(msgPragma, name)
}

// where names the statement in a refusal: its origin, or the tier's tool.
// use is a refusal of label in this tier's tool that sends the agent to
// the tool msg names, or in read-only mode says that none is offered.
func (p Policy) use(msg, label string) string {
	if p.ReadOnly {
		msg = msgNotInReadOnly
	}
	return fmt.Sprintf(msg, label, p.where())
}

// CompiledWrite is the refusal of a read whose compiled program writes
// (op is the first writing opcode), which the authorizer did not see.
func (p Policy) CompiledWrite(op string) string {
	if p.ReadOnly {
		return fmt.Sprintf("%s refused: the compiled statement writes to the database (%s); %s", p.where(), op, ReadOnlyServer)
	}
	return fmt.Sprintf("%s refused: the compiled statement writes to the database (%s); use "+ToolWriteQuery+", or "+ToolDestructiveQuery+" for DELETE, DROP and ALTER", p.where(), op)
}

// pick is msg, or its read-only form ro.
func (p Policy) pick(msg, ro string) string {
	if p.ReadOnly {
		return ro
	}
	return msg
}

func (p Policy) where() string {
	if p.Origin != "" {
		return p.Origin
	}
	return p.Tier.Tool()
}

func serverObjectMessage(name string) string {
	if IsServerTable(name) {
		return fmt.Sprintf(msgServerTable, name)
	}
	return fmt.Sprintf(msgServerView, name)
}

func isSchemaTable(name string) bool {
	return containsFold([]string{"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"}, name)
}

// isStatTable reports whether name is one of ANALYZE's tables; ANALYZE still
// clears the legacy sqlite_stat2 and sqlite_stat3 when they exist.
func isStatTable(name string) bool {
	return containsFold([]string{"sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"}, name)
}

func isAllowedModule(module string) bool {
	return containsFold([]string{"fts3", "fts4", "fts5", "rtree"}, module)
}

// introspectionPragmas are allowed with or without an argument.
var introspectionPragmas = setOf("table_info", "table_xinfo", "table_list", "index_list", "index_info",
	"index_xinfo", "foreign_key_list", "foreign_key_check", "function_list", "collation_list",
	"compile_options", "integrity_check", "quick_check")

// readStatePragmas are allowed only without a value. FTS5 reads data_version
// and R*Tree reads page_size while they run.
var readStatePragmas = setOf("journal_mode", "user_version", "schema_version", "application_id",
	"page_count", "page_size", "freelist_count", "data_version", "encoding", "foreign_keys",
	"synchronous", "cache_size", "busy_timeout", "query_only", "auto_vacuum", "max_page_count",
	"mmap_size", "temp_store", "wal_autocheckpoint")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// statementHead reads the head of sql as SQLite's tokenizer would, skipping
// whitespace, comments and an EXPLAIN [QUERY PLAN] prefix (a pragma takes
// some values while it compiles; flag pragmas such as query_only do). It
// returns the first keyword and, for PRAGMA [schema.]name, the name and
// whether a value follows ("=" or "(").
func statementHead(sql string) (keyword, name string, hasValue bool) {
	s := sqlScanner{src: sql}
	// SQLite compiles past empty statements (leading ';') and a byte-order
	// mark to the first real one, so the head must skip them too.
	for {
		if s.peek() == ';' {
			s.pos++
			continue
		}
		if strings.HasPrefix(s.src[s.pos:], "\uFEFF") {
			s.pos += len("\uFEFF")
			continue
		}
		break
	}
	keyword = s.ident()
	if equalFoldASCII(keyword, "explain") {
		keyword = s.ident()
		if equalFoldASCII(keyword, "query") {
			if !equalFoldASCII(s.ident(), "plan") {
				return "", "", false
			}
			keyword = s.ident()
		}
	}
	if !equalFoldASCII(keyword, "pragma") {
		return keyword, "", false
	}
	name = s.ident()
	if s.peek() == '.' {
		s.pos++
		name = s.ident()
	}
	c := s.peek()
	return keyword, name, c == '=' || c == '('
}

// sqlScanner walks SQL text token by token, just far enough for statementHead.
type sqlScanner struct {
	src string
	pos int
}

// peek skips whitespace and comments and returns the next byte, or 0.
func (s *sqlScanner) peek() byte {
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '\v':
			s.pos++
		case strings.HasPrefix(s.src[s.pos:], "\uFEFF"):
			// SQLite's tokenizer takes a byte-order mark for whitespace
			// wherever a token can start.
			s.pos += len("\uFEFF")
		case c == '-' && s.next() == '-':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		case c == '/' && s.next() == '*':
			s.pos += 2
			for s.pos < len(s.src) && !(s.src[s.pos] == '*' && s.next() == '/') {
				s.pos++
			}
			s.pos = min(s.pos+2, len(s.src))
		default:
			return c
		}
	}
	return 0
}

func (s *sqlScanner) next() byte {
	if s.pos+1 < len(s.src) {
		return s.src[s.pos+1]
	}
	return 0
}

// ident reads a bare, "double-quoted", [bracketed], `backquoted` or
// 'single-quoted' identifier and returns it unquoted, or "" when none is next.
func (s *sqlScanner) ident() string {
	c := s.peek()
	var closing byte
	switch c {
	case '"', '`', '\'':
		closing = c
	case '[':
		closing = ']'
	default:
		start := s.pos
		for s.pos < len(s.src) && isIdentByte(s.src[s.pos]) {
			s.pos++
		}
		return s.src[start:s.pos]
	}
	var b []byte
	for s.pos++; s.pos < len(s.src); s.pos++ {
		if s.src[s.pos] != closing {
			b = append(b, s.src[s.pos])
			continue
		}
		if closing != ']' && s.next() == closing {
			b = append(b, closing)
			s.pos++
			continue
		}
		s.pos++
		break
	}
	return string(b)
}

// isIdentByte reports whether c may appear in a bare SQLite identifier.
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
