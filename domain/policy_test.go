package domain_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The exact denial texts are the contract the agent reads.
const (
	loadExt      = "load_extension() is not allowed"
	createView   = "CREATE VIEW is not allowed here; use the create_view tool, which also stores a description"
	attach       = "ATTACH is not allowed; the server works on its one database file"
	detach       = "DETACH is not allowed; the server works on its one database file"
	vacuum       = "VACUUM is not allowed: the server manages the database file; use the snapshot tool for a copy"
	transaction  = "transaction control is handled by the server; send one statement at a time"
	temp         = "temporary objects are not allowed: they would vanish with the call; create a regular table with write_query instead"
	pragmaFormat = "PRAGMA %s is not allowed; allowed are the introspection pragmas (table_info, index_list, foreign_key_list, ...) and, without a value, reads of the connection's state (journal_mode, user_version, page_size, ...)"
	pragmaSet    = "PRAGMA %s can only be read: setting it is not allowed (the server manages the connection); run PRAGMA %s without a value or parentheses to read it"
)

var allTiers = []domain.Tier{domain.TierRead, domain.TierWrite, domain.TierDestructive}

// verdicts holds the expected reason per tier: read, write, destructive.
type verdicts [3]string

func every(msg string) verdicts { return verdicts{msg, msg, msg} }

// additive is refused in read_query only.
func additive(label string) verdicts {
	return verdicts{label + " is not allowed in read_query; use write_query", "", ""}
}

// destructive is allowed in destructive_query only.
func destructive(label string) verdicts {
	return verdicts{
		label + " is not allowed in read_query; use destructive_query (it snapshots the database first)",
		label + " is not allowed in write_query; use destructive_query (it snapshots the database first)",
		"",
	}
}

func pragmaDenied(name string) verdicts { return every(fmt.Sprintf(pragmaFormat, name)) }

// pragmaSetDenied refuses giving a value to a pragma that may be read.
func pragmaSetDenied(name string) verdicts { return every(fmt.Sprintf(pragmaSet, name, name)) }

// databaseListDenied is the refusal of the one pragma that names the file.
func databaseListDenied(name string) verdicts {
	return every("PRAGMA " + name + " is not allowed: it shows the database file's absolute path; the server works on its one database file, schema main (PRAGMA table_list lists its tables)")
}

func managed(table string) verdicts {
	return every(table + " is managed by the server and is append-only; it cannot be changed through SQL tools")
}

func internal(table string) verdicts {
	return every(table + " is internal to SQLite; it cannot be changed through SQL tools")
}

type policyCase struct {
	name string
	req  domain.AuthRequest
	want verdicts
}

func req(a domain.Action, arg1, arg2 string) domain.AuthRequest {
	db := ""
	switch a {
	case domain.ActionInsert, domain.ActionUpdate, domain.ActionDelete, domain.ActionRead,
		domain.ActionCreateTable, domain.ActionCreateIndex, domain.ActionCreateView,
		domain.ActionCreateTrigger, domain.ActionCreateVTable, domain.ActionDropTable,
		domain.ActionDropIndex, domain.ActionDropView, domain.ActionDropTrigger,
		domain.ActionDropVTable, domain.ActionAlterTable, domain.ActionReindex, domain.ActionAnalyze:
		db = "main"
	case domain.ActionCreateTempIndex, domain.ActionCreateTempTable, domain.ActionCreateTempTrigger,
		domain.ActionCreateTempView, domain.ActionDropTempIndex, domain.ActionDropTempTable,
		domain.ActionDropTempTrigger, domain.ActionDropTempView:
		db = "temp"
	}
	return domain.AuthRequest{Action: a, Arg1: arg1, Arg2: arg2, Database: db}
}

func inDB(r domain.AuthRequest, db string) domain.AuthRequest { r.Database = db; return r }

func running(r domain.AuthRequest) domain.AuthRequest { r.Running = true; return r }

func fromTrigger(r domain.AuthRequest, name string) domain.AuthRequest { r.Trigger = name; return r }

// shadowTables stands in for PRAGMA table_list: docs is an FTS5 table and r an
// rtree; docs_stat is a regular table that merely looks like a shadow table.
func shadowTables(table string) bool {
	switch table {
	case "docs_data", "docs_idx", "docs_content", "docs_docsize", "docs_config",
		"r_node", "r_rowid", "r_parent":
		return true
	}
	return false
}

func runPolicyCases(t *testing.T, cases []policyCase) {
	t.Helper()
	for _, tc := range cases {
		for i, tier := range allTiers {
			t.Run(tc.name+"/"+tier.Tool(), func(t *testing.T) {
				p := domain.Policy{Tier: tier, IsShadow: shadowTables}
				assert.Equal(t, tc.want[i], p.Check(tc.req))
			})
		}
	}
}

// actionCases covers every action code with ordinary arguments.
var actionCases = []policyCase{
	{"create index", req(domain.ActionCreateIndex, "notes_ts", "notes"), additive("CREATE INDEX")},
	{"create table", req(domain.ActionCreateTable, "notes", ""), additive("CREATE TABLE")},
	{"create temp index", req(domain.ActionCreateTempIndex, "i", "t"), every(temp)},
	{"create temp table", req(domain.ActionCreateTempTable, "t", ""), every(temp)},
	{"create temp trigger", req(domain.ActionCreateTempTrigger, "tr", "t"), every(temp)},
	{"create temp view", req(domain.ActionCreateTempView, "v", ""), every(temp)},
	{"create trigger", req(domain.ActionCreateTrigger, "notes_ai", "notes"), destructive("CREATE TRIGGER")},
	{"create view", req(domain.ActionCreateView, "recent", ""), every(createView)},
	{"delete", req(domain.ActionDelete, "notes", ""), destructive("DELETE")},
	{"drop index", req(domain.ActionDropIndex, "notes_ts", "notes"), destructive("DROP INDEX")},
	{"drop table", req(domain.ActionDropTable, "notes", ""), destructive("DROP TABLE")},
	{"drop temp index", req(domain.ActionDropTempIndex, "i", "t"), every(temp)},
	{"drop temp table", req(domain.ActionDropTempTable, "t", ""), every(temp)},
	{"drop temp trigger", req(domain.ActionDropTempTrigger, "tr", "t"), every(temp)},
	{"drop temp view", req(domain.ActionDropTempView, "v", ""), every(temp)},
	{"drop trigger", req(domain.ActionDropTrigger, "notes_ai", "notes"), destructive("DROP TRIGGER")},
	{"drop view", req(domain.ActionDropView, "recent", ""), destructive("DROP VIEW")},
	{"insert", req(domain.ActionInsert, "notes", ""), additive("INSERT")},
	{"pragma", req(domain.ActionPragma, "table_info", "notes"), every("")},
	{"read", req(domain.ActionRead, "notes", "title"), every("")},
	{"select", req(domain.ActionSelect, "", ""), every("")},
	{"transaction", req(domain.ActionTransaction, "BEGIN", ""), every(transaction)},
	{"update", req(domain.ActionUpdate, "notes", "title"), additive("UPDATE")},
	{"attach", req(domain.ActionAttach, "other.db", ""), every(attach)},
	{"detach", req(domain.ActionDetach, "other", ""), every(detach)},
	{"alter table", req(domain.ActionAlterTable, "main", "notes"), destructive("ALTER TABLE")},
	{"reindex", req(domain.ActionReindex, "notes_ts", ""), additive("REINDEX")},
	{"analyze", req(domain.ActionAnalyze, "notes", ""), additive("ANALYZE")},
	{"create virtual table", req(domain.ActionCreateVTable, "docs", "fts5"), additive("CREATE VIRTUAL TABLE")},
	{"drop virtual table", req(domain.ActionDropVTable, "docs", "fts5"), destructive("DROP VIRTUAL TABLE")},
	{"function", req(domain.ActionFunction, "", "lower"), every("")},
	{"savepoint", req(domain.ActionSavepoint, "BEGIN", "sp"), every(transaction)},
	{"recursive", req(domain.ActionRecursive, "", ""), every("")},
	{"unknown code 0", req(domain.Action(0), "x", ""), every("action 0 is not allowed")},
	{"unknown code 34", req(domain.Action(34), "x", ""), every("action 34 is not allowed")},
	{"unknown code 34 in temp", inDB(req(domain.Action(34), "x", ""), "temp"), every("action 34 is not allowed")},
	{"unknown code -1", req(domain.Action(-1), "", ""), every("action -1 is not allowed")},
}

func TestPolicyEveryAction(t *testing.T) {
	seen := map[domain.Action]bool{}
	for _, tc := range actionCases {
		seen[tc.req.Action] = true
	}
	for a := domain.ActionCreateIndex; a <= domain.ActionRecursive; a++ {
		assert.True(t, seen[a], "action %d (%s) has no case", int(a), a.Label())
	}
	runPolicyCases(t, actionCases)
}

func TestPolicyPragmas(t *testing.T) {
	var cases []policyCase
	for _, name := range []string{"table_info", "table_xinfo", "table_list", "index_list", "index_info",
		"index_xinfo", "foreign_key_list", "foreign_key_check", "function_list", "collation_list",
		"compile_options", "integrity_check", "quick_check"} {
		cases = append(cases,
			policyCase{"introspection " + name, req(domain.ActionPragma, name, ""), every("")},
			policyCase{"introspection " + name + " with argument", req(domain.ActionPragma, name, "notes"), every("")},
			policyCase{"introspection " + name + " upper case", req(domain.ActionPragma, strings.ToUpper(name), "notes"), every("")})
	}
	for _, name := range []string{"journal_mode", "user_version", "schema_version", "application_id",
		"page_count", "page_size", "freelist_count", "data_version", "encoding", "foreign_keys",
		"synchronous", "cache_size", "busy_timeout", "query_only", "auto_vacuum", "max_page_count",
		"mmap_size", "temp_store", "wal_autocheckpoint"} {
		cases = append(cases,
			policyCase{"read state " + name, req(domain.ActionPragma, name, ""), every("")},
			policyCase{"read state " + name + " with value", req(domain.ActionPragma, name, "1"), pragmaSetDenied(name)})
	}
	cases = append(cases,
		policyCase{"database_list names the file's folder", req(domain.ActionPragma, "database_list", ""), databaseListDenied("database_list")},
		policyCase{"pragma_database_list while running", running(req(domain.ActionPragma, "Database_List", "")), databaseListDenied("Database_List")},
		policyCase{"database_list with an argument", req(domain.ActionPragma, "database_list", "main"), databaseListDenied("database_list")},
		policyCase{"journal_mode=delete", req(domain.ActionPragma, "journal_mode", "delete"), pragmaSetDenied("journal_mode")},
		policyCase{"writable_schema", req(domain.ActionPragma, "writable_schema", ""), pragmaDenied("writable_schema")},
		policyCase{"writable_schema=ON", req(domain.ActionPragma, "writable_schema", "ON"), pragmaDenied("writable_schema")},
		policyCase{"pragma_writable_schema table while running", running(req(domain.ActionPragma, "writable_schema", "")), pragmaDenied("writable_schema")},
		policyCase{"foreign_keys=ON", req(domain.ActionPragma, "foreign_keys", "ON"), pragmaSetDenied("foreign_keys")},
		policyCase{"name kept as passed", req(domain.ActionPragma, "Foreign_Keys", "on"), pragmaSetDenied("Foreign_Keys")},
		policyCase{"mixed case value-less read", req(domain.ActionPragma, "Journal_Mode", ""), every("")},
		policyCase{"locking_mode without value", req(domain.ActionPragma, "locking_mode", ""), pragmaDenied("locking_mode")},
		policyCase{"optimize", req(domain.ActionPragma, "optimize", ""), pragmaDenied("optimize")},
		policyCase{"wal_checkpoint", req(domain.ActionPragma, "wal_checkpoint", "TRUNCATE"), pragmaDenied("wal_checkpoint")},
		policyCase{"in schema main", inDB(req(domain.ActionPragma, "table_info", "notes"), "main"), every("")},
		policyCase{"in schema temp", inDB(req(domain.ActionPragma, "user_version", ""), "temp"), every("")},
		policyCase{"fts5 data_version while running", running(req(domain.ActionPragma, "data_version", "")), every("")},
		policyCase{"rtree page_size while running", running(req(domain.ActionPragma, "page_size", "")), every("")},
		policyCase{"pragma_table_info while running", running(req(domain.ActionPragma, "table_info", "notes")), every("")},
	)
	runPolicyCases(t, cases)
}

func TestPolicyFunctions(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"load_extension", req(domain.ActionFunction, "", "load_extension"), every(loadExt)},
		{"LOAD_EXTENSION", req(domain.ActionFunction, "", "LOAD_EXTENSION"), every(loadExt)},
		{"Load_Extension", req(domain.ActionFunction, "", "Load_Extension"), every(loadExt)},
		{"load_extension in a view", fromTrigger(req(domain.ActionFunction, "", "load_extension"), "v"), every(loadExt)},
		{"similar name", req(domain.ActionFunction, "", "load_extensions"), every("")},
		{"fts5 match", req(domain.ActionFunction, "", "match"), every("")},
	})
}

func TestPolicyServerObjects(t *testing.T) {
	var cases []policyCase
	for _, table := range []string{"memory_events", "memory_checkpoints", "query_log", "QUERY_LOG", "Memory_Events"} {
		cases = append(cases,
			policyCase{"insert " + table, req(domain.ActionInsert, table, ""), managed(table)},
			policyCase{"update " + table, req(domain.ActionUpdate, table, "content"), managed(table)},
			policyCase{"delete " + table, req(domain.ActionDelete, table, ""), managed(table)},
			policyCase{"delete " + table + " while running", running(req(domain.ActionDelete, table, "")), managed(table)},
			policyCase{"insert " + table + " from a trigger", fromTrigger(req(domain.ActionInsert, table, ""), "notes_ai"), managed(table)},
			policyCase{"create table " + table, req(domain.ActionCreateTable, table, ""), managed(table)},
			policyCase{"create index on " + table, req(domain.ActionCreateIndex, "my_idx", table), managed(table)},
			policyCase{"create trigger on " + table, req(domain.ActionCreateTrigger, "my_trg", table), managed(table)},
			policyCase{"drop table " + table, req(domain.ActionDropTable, table, ""), managed(table)},
			policyCase{"drop index on " + table, req(domain.ActionDropIndex, "query_log_ts", table), managed(table)},
			policyCase{"drop trigger on " + table, req(domain.ActionDropTrigger, "memory_events_no_update", table), managed(table)},
			policyCase{"alter table " + table, req(domain.ActionAlterTable, "main", table), managed(table)},
			policyCase{"create virtual table " + table, req(domain.ActionCreateVTable, table, "fts5"), managed(table)},
			policyCase{"read " + table, req(domain.ActionRead, table, "id"), every("")},
			policyCase{"reindex " + table, req(domain.ActionReindex, table, ""), additive("REINDEX")},
			policyCase{"analyze " + table, req(domain.ActionAnalyze, table, ""), additive("ANALYZE")},
		)
	}
	view := every("query_errors is a view managed by the server; it cannot be changed through SQL tools")
	cases = append(cases,
		policyCase{"drop view query_errors", req(domain.ActionDropView, "query_errors", ""), view},
		policyCase{"insert into query_errors", req(domain.ActionInsert, "query_errors", ""), view},
		policyCase{"instead-of trigger on query_errors", req(domain.ActionCreateTrigger, "t", "query_errors"), view},
		policyCase{"create view query_errors", req(domain.ActionCreateView, "query_errors", ""), every(createView)},
		policyCase{"read query_errors", fromTrigger(req(domain.ActionRead, "query_log", "error"), "query_errors"), every("")},
		policyCase{"user table named like a server table", req(domain.ActionInsert, "query_log2", ""), additive("INSERT")},
	)
	runPolicyCases(t, cases)
}

func TestPolicyInternalTables(t *testing.T) {
	var cases []policyCase
	for _, table := range []string{"sqlite_master", "sqlite_schema", "SQLITE_MASTER"} {
		cases = append(cases,
			policyCase{"insert " + table, req(domain.ActionInsert, table, ""), every("")},
			policyCase{"update " + table, req(domain.ActionUpdate, table, "sql"), every("")},
			policyCase{"delete " + table, req(domain.ActionDelete, table, ""), every("")})
	}
	cases = append(cases,
		policyCase{"delete sqlite_stat1 (ANALYZE t)", req(domain.ActionDelete, "sqlite_stat1", ""), additive("DELETE")},
		policyCase{"delete sqlite_stat4", req(domain.ActionDelete, "sqlite_stat4", ""), additive("DELETE")},
		policyCase{"delete legacy sqlite_stat3", req(domain.ActionDelete, "sqlite_stat3", ""), additive("DELETE")},
		policyCase{"insert sqlite_stat1", req(domain.ActionInsert, "sqlite_stat1", ""), additive("INSERT")},
		policyCase{"update SQLITE_STAT1", req(domain.ActionUpdate, "SQLITE_STAT1", "stat"), additive("UPDATE")},
		policyCase{"create table sqlite_stat1 (ANALYZE)", req(domain.ActionCreateTable, "sqlite_stat1", ""), additive("CREATE TABLE")},
		policyCase{"insert sqlite_sequence", req(domain.ActionInsert, "sqlite_sequence", ""), additive("INSERT")},
		policyCase{"update sqlite_sequence", req(domain.ActionUpdate, "sqlite_sequence", "seq"), additive("UPDATE")},
		policyCase{"delete sqlite_sequence", req(domain.ActionDelete, "sqlite_sequence", ""), destructive("DELETE")},
		policyCase{"insert sqlite_dbpage", req(domain.ActionInsert, "sqlite_dbpage", ""), internal("sqlite_dbpage")},
		policyCase{"update SQLITE_DBPAGE", req(domain.ActionUpdate, "SQLITE_DBPAGE", "data"), internal("SQLITE_DBPAGE")},
		policyCase{"delete sqlite_dbpage", req(domain.ActionDelete, "sqlite_dbpage", ""), internal("sqlite_dbpage")},
		policyCase{"read sqlite_dbpage", req(domain.ActionRead, "sqlite_dbpage", "data"), every("")},
		policyCase{"user table sqlitedata", req(domain.ActionDelete, "sqlitedata", ""), destructive("DELETE")},
	)
	runPolicyCases(t, cases)
}

func TestPolicyTemporaryObjects(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"CREATE TEMP TABLE bookkeeping", inDB(req(domain.ActionInsert, "sqlite_temp_master", ""), "temp"), every(temp)},
		{"CREATE TABLE temp.x bookkeeping", inDB(req(domain.ActionInsert, "sqlite_master", ""), "temp"), every(temp)},
		{"CREATE TABLE temp.x", inDB(req(domain.ActionCreateTable, "x", ""), "temp"), every(temp)},
		{"CREATE TABLE TEMP.x", inDB(req(domain.ActionCreateTable, "x", ""), "TEMP"), every(temp)},
		{"CREATE VIEW temp.v", inDB(req(domain.ActionCreateView, "v", ""), "temp"), every(temp)},
		{"CREATE VIRTUAL TABLE temp.f", inDB(req(domain.ActionCreateVTable, "f", "fts5"), "temp"), every(temp)},
		{"CREATE INDEX in temp", inDB(req(domain.ActionCreateIndex, "i", "x"), "temp"), every(temp)},
		{"update a temp table", inDB(req(domain.ActionUpdate, "x", "a"), "temp"), every(temp)},
		{"delete from a temp table", inDB(req(domain.ActionDelete, "x", ""), "temp"), every(temp)},
		// ALTER TABLE RENAME / DROP COLUMN rewrite the temp schema table.
		{"update sqlite_temp_master", inDB(req(domain.ActionUpdate, "sqlite_temp_master", "sql"), "temp"), verdicts{temp, temp, ""}},
		{"drop table temp.x", inDB(req(domain.ActionDropTable, "x", ""), "temp"), every(temp)},
		{"read sqlite_temp_master", inDB(req(domain.ActionRead, "sqlite_temp_master", "sql"), "temp"), every("")},
		{"temp table named like a server table", req(domain.ActionCreateTempTable, "query_log", ""), every(temp)},
	})
}

func TestPolicyShadowTablesAndRunningStatements(t *testing.T) {
	writeDelete := destructive("DELETE")
	runPolicyCases(t, []policyCase{
		{"delete real shadow table", req(domain.ActionDelete, "docs_data", ""), every("")},
		{"insert real shadow table (rtree connect)", req(domain.ActionInsert, "r_node", ""), every("")},
		{"update real shadow table", req(domain.ActionUpdate, "r_rowid", "nodeno"), every("")},
		{"delete regular table named like a shadow table", req(domain.ActionDelete, "docs_stat", ""), writeDelete},
		{"delete shadow table of a new rtree while running", running(req(domain.ActionDelete, "r2_node", "")), verdicts{writeDelete[0], "", ""}},
		{"delete while running from a trigger", fromTrigger(running(req(domain.ActionDelete, "notes", "")), "docs_ai"), writeDelete},
		{"delete user table from a trigger", fromTrigger(req(domain.ActionDelete, "notes", ""), "notes_ai"), writeDelete},
		{"insert while running", running(req(domain.ActionInsert, "r2_rowid", "")), additive("INSERT")},
		{"fts5 insert into shadow while running", running(req(domain.ActionInsert, "docs_content", "")), every("")},
		{"create shadow table while running", running(req(domain.ActionCreateTable, "r2_node", "")), additive("CREATE TABLE")},
		{"create shadow autoindex while running", running(req(domain.ActionCreateIndex, "sqlite_autoindex_d_idx_1", "d_idx")), additive("CREATE INDEX")},
		{"drop shadow table while running", running(req(domain.ActionDropTable, "docs_data", "")), destructive("DROP TABLE")},
	})
}

func TestPolicyAttachAndVacuum(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"ATTACH", req(domain.ActionAttach, "other.db", ""), every(attach)},
		{"ATTACH of nothing at compile time", req(domain.ActionAttach, "", ""), every(attach)},
		{"VACUUM", running(req(domain.ActionAttach, "", "")), every(vacuum)},
		{"VACUUM INTO", running(req(domain.ActionAttach, "copy.db", "")), every(vacuum)},
		{"DETACH", req(domain.ActionDetach, "other", ""), every(detach)},
		{"DETACH while running", running(req(domain.ActionDetach, "vacuum_db", "")), every(vacuum)},
	})
}

func TestPolicyTransactionsViewsAndModules(t *testing.T) {
	module := func(m string) verdicts {
		return verdicts{additive("CREATE VIRTUAL TABLE")[0],
			"virtual table module " + m + " is not allowed (allowed: fts3, fts4, fts5, rtree)",
			"virtual table module " + m + " is not allowed (allowed: fts3, fts4, fts5, rtree)"}
	}
	runPolicyCases(t, []policyCase{
		{"BEGIN", req(domain.ActionTransaction, "BEGIN", ""), every(transaction)},
		{"COMMIT", req(domain.ActionTransaction, "COMMIT", ""), every(transaction)},
		{"ROLLBACK", req(domain.ActionTransaction, "ROLLBACK", ""), every(transaction)},
		{"SAVEPOINT", req(domain.ActionSavepoint, "BEGIN", "a"), every(transaction)},
		{"RELEASE", req(domain.ActionSavepoint, "RELEASE", "a"), every(transaction)},
		{"ROLLBACK TO", req(domain.ActionSavepoint, "ROLLBACK", "a"), every(transaction)},
		{"CREATE VIEW", req(domain.ActionCreateView, "v", ""), every(createView)},
		{"CREATE VIEW named like a server table", req(domain.ActionCreateView, "query_log", ""), every(createView)},
		{"module fts5", req(domain.ActionCreateVTable, "d", "fts5"), additive("CREATE VIRTUAL TABLE")},
		{"module FTS5", req(domain.ActionCreateVTable, "d", "FTS5"), additive("CREATE VIRTUAL TABLE")},
		{"module fts3", req(domain.ActionCreateVTable, "d", "fts3"), additive("CREATE VIRTUAL TABLE")},
		{"module fts4", req(domain.ActionCreateVTable, "d", "fts4"), additive("CREATE VIRTUAL TABLE")},
		{"module rtree", req(domain.ActionCreateVTable, "r", "rtree"), additive("CREATE VIRTUAL TABLE")},
		{"module RTree", req(domain.ActionCreateVTable, "r", "RTree"), additive("CREATE VIRTUAL TABLE")},
		{"module geopoly", req(domain.ActionCreateVTable, "g", "geopoly"), module("'geopoly'")},
		{"module csv", req(domain.ActionCreateVTable, "c", "csv"), module("'csv'")},
		{"module fts5x", req(domain.ActionCreateVTable, "c", "fts5x"), module("'fts5x'")},
		{"module with a quote", req(domain.ActionCreateVTable, "c", "a'b"), module(`"a'b"`)},
	})
}

// TestPolicyStatements replays callback sequences recorded from modernc's
// SQLite and checks the first denial, which is what the agent sees.
func TestPolicyStatements(t *testing.T) {
	sqliteMaster := req(domain.ActionInsert, "sqlite_master", "")
	schemaUpdate := req(domain.ActionUpdate, "sqlite_master", "sql")
	rtreeCreate := []domain.AuthRequest{
		sqliteMaster, req(domain.ActionCreateVTable, "r2", "rtree"), schemaUpdate,
		running(req(domain.ActionPragma, "page_size", "")), running(sqliteMaster),
		running(req(domain.ActionCreateTable, "r2_rowid", "")), running(schemaUpdate),
		running(req(domain.ActionCreateTable, "r2_node", "")), running(req(domain.ActionCreateTable, "r2_parent", "")),
		running(req(domain.ActionInsert, "r2_node", "")), running(req(domain.ActionFunction, "", "zeroblob")),
		running(req(domain.ActionDelete, "r2_node", "")), running(req(domain.ActionRead, "r2_node", "nodeno")),
		running(req(domain.ActionInsert, "r2_rowid", "")), running(req(domain.ActionDelete, "r2_rowid", "")),
		running(req(domain.ActionInsert, "r2_parent", "")), running(req(domain.ActionDelete, "r2_parent", "")),
	}
	rtreeConnect := []domain.AuthRequest{
		req(domain.ActionSelect, "", ""), req(domain.ActionRead, "r_node", "data"),
		req(domain.ActionInsert, "r_node", ""), req(domain.ActionDelete, "r_node", ""),
		req(domain.ActionInsert, "r_rowid", ""), req(domain.ActionDelete, "r_rowid", ""),
		req(domain.ActionInsert, "r_parent", ""), req(domain.ActionDelete, "r_parent", ""),
		req(domain.ActionRead, "r", "id"),
	}
	fts5Update := []domain.AuthRequest{
		req(domain.ActionRead, "docs_config", "k"), req(domain.ActionUpdate, "docs", "body"),
		running(req(domain.ActionPragma, "data_version", "")), running(req(domain.ActionDelete, "docs_docsize", "")),
		running(req(domain.ActionDelete, "docs_content", "")), running(req(domain.ActionInsert, "docs_content", "")),
		running(req(domain.ActionInsert, "docs_data", "")), running(req(domain.ActionInsert, "docs_idx", "")),
	}
	analyzeTable := []domain.AuthRequest{
		req(domain.ActionDelete, "sqlite_stat1", ""), req(domain.ActionRead, "sqlite_stat1", "tbl"),
		req(domain.ActionDelete, "sqlite_stat4", ""), req(domain.ActionAnalyze, "notes", ""),
	}
	createTempTable := []domain.AuthRequest{inDB(sqliteMaster, "temp"), inDB(req(domain.ActionCreateTable, "x", ""), "temp")}
	vacuumRun := []domain.AuthRequest{running(req(domain.ActionAttach, "", "")), running(req(domain.ActionTransaction, "BEGIN", ""))}
	dropMemory := []domain.AuthRequest{req(domain.ActionDelete, "sqlite_master", ""), req(domain.ActionDropTable, "memory_events", "")}
	for _, tc := range []struct {
		name  string
		calls []domain.AuthRequest
		want  verdicts
	}{
		{"CREATE VIRTUAL TABLE USING rtree", rtreeCreate, additive("CREATE VIRTUAL TABLE")},
		{"SELECT from an rtree on a fresh connection", rtreeConnect, every("")},
		{"UPDATE an fts5 table", fts5Update, additive("UPDATE")},
		{"ANALYZE a table", analyzeTable, additive("DELETE")},
		{"CREATE TABLE temp.x", createTempTable, every(temp)},
		{"VACUUM", vacuumRun, every(vacuum)},
		{"DROP TABLE memory_events", dropMemory, managed("memory_events")},
	} {
		for i, tier := range allTiers {
			t.Run(tc.name+"/"+tier.Tool(), func(t *testing.T) {
				p := domain.Policy{Tier: tier, IsShadow: shadowTables}
				first := ""
				for _, call := range tc.calls {
					if first = p.Check(call); first != "" {
						break
					}
				}
				assert.Equal(t, tc.want[i], first)
			})
		}
	}
}

func TestPolicyWithoutShadowFunction(t *testing.T) {
	p := domain.Policy{Tier: domain.TierWrite}
	assert.Equal(t, destructive("DELETE")[1], p.Check(req(domain.ActionDelete, "docs_data", "")))
	assert.Empty(t, p.Check(req(domain.ActionInsert, "docs_data", "")))
}

func TestPolicyWithoutTierRefusesEverything(t *testing.T) {
	for _, p := range []domain.Policy{{}, {Tier: domain.Tier(4)}} {
		assert.NotEmpty(t, p.Check(req(domain.ActionSelect, "", "")), "tier %d", int(p.Tier))
		assert.NotEmpty(t, p.Check(req(domain.ActionRead, "notes", "id")), "tier %d", int(p.Tier))
	}
}

// TestPolicyReplicationTables: Litestream's tables can be read, never
// changed, created ahead of Litestream, or given triggers and indexes: its
// connection runs no policy, so a trigger on them would run unchecked.
func TestPolicyReplicationTables(t *testing.T) {
	owned := func(table string) verdicts {
		return every(table + " belongs to Litestream, which replicates this database (--replicate); it cannot be changed through SQL tools")
	}
	var cases []policyCase
	for _, table := range []string{"_litestream_seq", "_litestream_lock", "_LiteStream_seq", "_litestream_future"} {
		cases = append(cases,
			policyCase{"insert " + table, req(domain.ActionInsert, table, ""), owned(table)},
			policyCase{"update " + table, req(domain.ActionUpdate, table, "seq"), owned(table)},
			policyCase{"delete " + table, req(domain.ActionDelete, table, ""), owned(table)},
			policyCase{"insert " + table + " from a trigger", fromTrigger(req(domain.ActionInsert, table, ""), "notes_ai"), owned(table)},
			policyCase{"create table " + table, req(domain.ActionCreateTable, table, ""), owned(table)},
			policyCase{"create index on " + table, req(domain.ActionCreateIndex, "my_idx", table), owned(table)},
			policyCase{"create trigger on " + table, req(domain.ActionCreateTrigger, "my_trg", table), owned(table)},
			policyCase{"drop table " + table, req(domain.ActionDropTable, table, ""), owned(table)},
			policyCase{"alter table " + table, req(domain.ActionAlterTable, "main", table), owned(table)},
			policyCase{"create virtual table " + table, req(domain.ActionCreateVTable, table, "fts5"), owned(table)},
			policyCase{"read " + table, req(domain.ActionRead, table, "seq"), every("")},
		)
	}
	cases = append(cases,
		policyCase{"a user table merely named like it", req(domain.ActionInsert, "litestream_seq", ""), additive("INSERT")},
		policyCase{"prefix without its underscore", req(domain.ActionDropTable, "_litestreamx", ""), destructive("DROP TABLE")},
	)
	runPolicyCases(t, cases)
}
