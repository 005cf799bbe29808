package attack_test

import "strings"

// Attacks on the engine around the data: other files, pragmas, extensions,
// temporary objects, transactions and runaway work.

var attachAndVacuum = []attack{
	{"ATTACH '{{dir}}/evil.db' AS evil", all(policy)},
	{"ATTACH DATABASE '{{out}}/evil.db' AS evil", all(policy)},
	// Relative: it would land in the working directory (TestMain checks).
	{"ATTACH 'evil.db' AS evil", all(policy)},
	{"ATTACH ':memory:' AS m", all(policy)},
	{"ATTACH 'file:{{dir}}/evil.db?mode=rwc' AS evil", all(policy)},
	{"ATTACH '' AS scratch", all(policy)},
	{"attach database '{{dir}}/test.db' as again", all(policy)},
	{"ATTACH (SELECT '{{out}}/' || 'evil.db') AS evil", all(policy)},
	{"DETACH main", all(policy)},
	{"DETACH temp", all(policy)},
	{"DETACH DATABASE evil", all(policy)},
	{"VACUUM", all(policy)},
	{"vacuum", all(policy)},
	{"/* x */ VACUUM", all(policy)},
	{"VACUUM main", all(policy)},
	{"VACUUM temp", all(policy)},
	{"VACUUM INTO '{{dir}}/copy.db'", all(policy)},
	{"VACUUM main INTO '{{out}}/copy.db'", all(policy)},
	{"vacuum /* c */ into '{{dir}}/x.db'", all(policy)},
	{"VACUUM INTO 'file:{{dir}}/copy.db?mode=rwc'", all(policy)},
	{"VACUUM INTO 'copy.db'", all(policy)},
	// An empty statement or a byte-order mark before it must not hide it.
	{";VACUUM", all(policy)},
	{"\ufeffVACUUM", all(policy)},
	{"EXPLAIN \ufeffVACUUM", all(policy)},
	{"; VACUUM INTO '{{dir}}/copy.db'", all(policy)},
}

// refusedPragmas are pragmas that write or change how the engine behaves;
// each is refused in every tier, however it is spelled.
var refusedPragmas = []string{
	"PRAGMA journal_mode = DELETE",
	"PRAGMA journal_mode = OFF",
	"PRAGMA journal_mode = MEMORY",
	"PRAGMA journal_mode = TRUNCATE",
	"PRAGMA journal_mode = WAL",
	"PRAGMA main.journal_mode = delete",
	"PRAGMA query_only = 0",
	"PRAGMA query_only = OFF",
	"PRAGMA query_only = false",
	"PRAGMA query_only(0)",
	"PRAGMA main.query_only = 0",
	`PRAGMA "query_only" = 0`,
	"PRAGMA [query_only]=0",
	"PRAGMA `query_only` = 0",
	"PRAGMA 'query_only' = 0",
	"PRAGMA /*x*/ query_only /*y*/ = /*z*/ 0",
	// The empty string reaches the authorizer like no value at all.
	"PRAGMA query_only = ''",
	`PRAGMA query_only = ""`,
	"PRAGMA query_only('')",
	"PRAGMA foreign_keys = ON",
	"PRAGMA foreign_keys = 1",
	"PRAGMA temp.foreign_keys = 1",
	"PRAGMA writable_schema = ON",
	"PRAGMA writable_schema",
	"PRAGMA user_version = 8",
	"PRAGMA main.user_version = ''",
	"PRAGMA application_id = 1",
	"PRAGMA schema_version = 1",
	"PRAGMA auto_vacuum = FULL",
	"PRAGMA page_size = 1024",
	"PRAGMA cache_size = 0",
	"PRAGMA cache_size = ''",
	"PRAGMA busy_timeout = 0",
	"PRAGMA synchronous = OFF",
	"PRAGMA synchronous = ''",
	"PRAGMA locking_mode = EXCLUSIVE",
	"PRAGMA locking_mode",
	"PRAGMA secure_delete = ON",
	"PRAGMA recursive_triggers = ON",
	"PRAGMA ignore_check_constraints = ON",
	"PRAGMA defer_foreign_keys = ON",
	"PRAGMA legacy_alter_table = ON",
	"PRAGMA trusted_schema = ON",
	"PRAGMA cell_size_check = ON",
	"PRAGMA case_sensitive_like = ON",
	"PRAGMA reverse_unordered_selects = ON",
	"PRAGMA automatic_index = OFF",
	"PRAGMA temp_store = MEMORY",
	"PRAGMA temp_store_directory = '{{out}}'",
	"PRAGMA data_store_directory = '{{out}}'",
	"PRAGMA mmap_size = 268435456",
	"PRAGMA max_page_count = 1",
	"PRAGMA journal_size_limit = 0",
	"PRAGMA wal_autocheckpoint = 0",
	"PRAGMA wal_autocheckpoint = ''",
	"PRAGMA wal_checkpoint(TRUNCATE)",
	"PRAGMA wal_checkpoint",
	"PRAGMA incremental_vacuum(10)",
	"PRAGMA optimize",
	"PRAGMA optimize(0x10002)",
	"PRAGMA shrink_memory",
	"PRAGMA soft_heap_limit = 1",
	"PRAGMA hard_heap_limit = 1",
	"PRAGMA threads = 4",
	"PRAGMA analysis_limit = 1",
	"PRAGMA count_changes = 1",
	"PRAGMA full_column_names = 1",
	"PRAGMA short_column_names = 0",
	"PRAGMA empty_result_callbacks = 1",
	"PRAGMA default_cache_size = 1",
	"PRAGMA legacy_file_format = 1",
	"PRAGMA read_uncommitted = 1",
	"PRAGMA checkpoint_fullfsync = 1",
	"PRAGMA fullfsync = 1",
	"PRAGMA cache_spill = 0",
	"PRAGMA encoding = 'UTF-16'",
	"PRAGMA vdbe_trace = 1",
	"PRAGMA no_such_pragma = 1",
	"PRAGMA no_such_pragma",
	"PRAGMA module_list",
	"PRAGMA pragma_list",
	"PRAGMA stats",
	// An empty statement before the pragma must not hide its value.
	";PRAGMA query_only = ''",
	" ; PRAGMA query_only = ''",
	";EXPLAIN PRAGMA query_only = ''",
	";;PRAGMA synchronous = ''",
	";/* c */;PRAGMA cache_size = ''",
	";PRAGMA wal_autocheckpoint = ''",
	";PRAGMA user_version = ''",
	";PRAGMA application_id = ''",
	";PRAGMA mmap_size = ''",
	";PRAGMA temp_store = ''",
	";PRAGMA journal_mode = ''",
	"-- c\n;PRAGMA foreign_keys = ''",
	// SQLite skips a byte-order mark like a space.
	"\ufeffPRAGMA query_only = ''",
	"\ufeff\ufeffPRAGMA wal_autocheckpoint = ''",
	"\ufeffEXPLAIN PRAGMA query_only = ''",
	"\ufeffPRAGMA user_version = ''",
	// ... and anywhere a token may start, not only at the beginning.
	"EXPLAIN \ufeffPRAGMA query_only = ''",
	"PRAGMA query_only \ufeff= ''",
	"PRAGMA \ufeffquery_only = ''",
	"; \ufeff ; PRAGMA wal_autocheckpoint = ''",
	"/* c */ \ufeff PRAGMA cache_size = ''",
	"PRAGMA main. \ufeffwal_autocheckpoint = ''",
	"PRAGMA wal_autocheckpoint \ufeff= ''",
	"EXPLAIN \ufeffPRAGMA cache_size = ''",
}

// allowedPragmas read without changing anything.
var allowedPragmas = []string{
	"PRAGMA table_info(notes)",
	"PRAGMA table_info = 'notes'",
	"PRAGMA journal_mode",
	"PRAGMA main.journal_mode",
	"PRAGMA query_only",
	"PRAGMA foreign_keys",
	"PRAGMA user_version",
	"PRAGMA quick_check(1)",
	"PRAGMA integrity_check",
	"PRAGMA foreign_key_check",
}

var pragmas = func() []attack {
	var out []attack
	for _, p := range refusedPragmas {
		out = append(out, attack{p, all(policy)})
	}
	for _, p := range allowedPragmas {
		out = append(out, attack{p, all(allowed)})
	}
	return out
}()

var pragmaFunctions = []attack{
	{"SELECT * FROM pragma_writable_schema", all(policy)},
	{"SELECT * FROM pragma_locking_mode", all(policy)},
	{"SELECT * FROM pragma_optimize", all(policy)},
	{"SELECT * FROM pragma_secure_delete", all(policy)},
	{"SELECT * FROM pragma_recursive_triggers", all(policy)},
	{"SELECT * FROM pragma_trusted_schema", all(policy)},
	{"SELECT * FROM pragma_module_list", all(policy)},
	{"SELECT * FROM pragma_pragma_list", all(policy)},
	{"SELECT * FROM main.pragma_cell_size_check", all(policy)},
	// Pragmas with side effects have no table-valued function at all.
	{"SELECT * FROM pragma_query_only(0)", all(engine)},
	{"SELECT * FROM pragma_journal_mode('delete')", all(engine)},
	{"SELECT * FROM pragma_user_version(8)", all(engine)},
	{"SELECT * FROM pragma_wal_checkpoint", all(engine)},
	{"SELECT * FROM pragma_user_version", all(allowed)},
	{"SELECT * FROM pragma_table_info('notes')", all(allowed)},
	{"SELECT * FROM pragma_integrity_check", all(allowed)},
}

var loadExtension = []attack{
	{"SELECT load_extension('libevil')", all(policy)},
	{"SELECT LOAD_EXTENSION('libevil', 'sqlite3_evil_init')", all(policy)},
	{`SELECT "load_extension"('libevil')`, all(policy)},
	{"SELECT [load_extension]('libevil')", all(policy)},
	{"SELECT `load_extension`('libevil')", all(policy)},
	{"SELECT load_extension(NULL)", all(policy)},
	{"SELECT * FROM notes WHERE load_extension('libevil')", all(policy)},
	{"SELECT count(*) FROM notes GROUP BY load_extension(title)", all(policy)},
	{"SELECT title FROM v_notes WHERE load_extension('libevil') IS NULL", all(policy)},
	{"INSERT INTO notes (title) VALUES (load_extension('libevil'))", all(policy)},
	{"UPDATE notes SET title = load_extension('libevil')", all(policy)},
	{"DELETE FROM notes WHERE load_extension('libevil')", all(policy)},
	{"CREATE TABLE t (a DEFAULT (load_extension('libevil')))", all(policy)},
	{"CREATE TABLE t (a CHECK (load_extension('libevil')))", all(policy)},
	{"CREATE TABLE t (a, b AS (load_extension(a)))", all(policy)},
	{"CREATE INDEX ix ON notes(load_extension(title))", all(policy)},
	{"CREATE INDEX ix ON notes(title) WHERE load_extension('libevil')", all(policy)},
	// The trigger body is authorized when it fires (ext_trap's does this).
	{"CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN SELECT load_extension('libevil'); END", tiers(use("destructive_query"), use("destructive_query"), laterPolicy)},
	{"INSERT INTO ext_trap DEFAULT VALUES", tiers(use("write_query"), policy, policy)},
	// FTS4 would call its compress functions itself; this build has no FTS4.
	{"CREATE VIRTUAL TABLE t USING fts4(a, compress=load_extension, uncompress=load_extension)", tiers(use("write_query"), engine, engine)},
}

var tempObjects = []attack{
	{"CREATE TEMP TABLE t (a)", all(policy)},
	{"CREATE TEMPORARY TABLE t (a)", all(policy)},
	{"CREATE TABLE temp.t (a)", all(policy)},
	{`CREATE TABLE "TEMP".t (a)`, all(policy)},
	{"CREATE TABLE TeMp.t (a)", all(policy)},
	{"CREATE TEMP TABLE t AS SELECT * FROM notes", all(policy)},
	{"CREATE TEMP TABLE IF NOT EXISTS t (a)", all(policy)},
	{"CREATE TEMP VIEW v AS SELECT 1", all(policy)},
	{"CREATE VIEW temp.v AS SELECT 1", all(policy)},
	// A temporary trigger on a main table would outlive the policy's view
	// of the schema; it is refused however it is spelled.
	{"CREATE TEMP TRIGGER t1 AFTER INSERT ON notes BEGIN DELETE FROM notes; END", all(policy)},
	{"CREATE TRIGGER temp.t1 AFTER INSERT ON notes BEGIN DELETE FROM notes; END", all(policy)},
	{"CREATE TEMP TRIGGER t1 BEFORE INSERT ON query_log BEGIN SELECT 1; END", all(policy)},
	{"CREATE INDEX temp.i ON notes(title)", all(engine)},
	{"CREATE VIRTUAL TABLE temp.vt USING fts5(a)", all(policy)},
	{"CREATE VIRTUAL TABLE temp.vt USING rtree(id, a, b)", all(policy)},
	{"INSERT INTO temp.sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x (a)')", all(policy)},
	{"UPDATE sqlite_temp_master SET sql = 'x'", all(engine)},
	{"DROP TABLE temp.notes", all(engine)},
}

var transactionControl = []attack{
	{"BEGIN", all(policy)},
	{"BEGIN IMMEDIATE", all(policy)},
	{"BEGIN EXCLUSIVE", all(policy)},
	{"BEGIN DEFERRED TRANSACTION", all(policy)},
	{"begin /* c */ immediate", all(policy)},
	{"COMMIT", all(policy)},
	{"END", all(policy)},
	{"END TRANSACTION", all(policy)},
	{"ROLLBACK", all(policy)},
	{"SAVEPOINT a", all(policy)},
	{"RELEASE a", all(policy)},
	{"RELEASE SAVEPOINT a", all(policy)},
	{"ROLLBACK TO a", all(policy)},
	{"ROLLBACK TRANSACTION TO SAVEPOINT a", all(policy)},
	{"EXPLAIN COMMIT", all(policy)},
}

// runaway are statements that would run or grow without bound. The deadline
// or SQLite's length limit stops them; a write among them is rolled back.
func runaway() []attack {
	return []attack{
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", all(timeout)},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY x DESC LIMIT 1", all(timeout)},
		// Streamed: the row and byte caps end it, not the deadline.
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", all(allowed)},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO notes (title) SELECT x FROM c", tiers(use("write_query"), timeout, timeout)},
		{"SELECT count(*) FROM bulk a, bulk b, bulk c, bulk d, bulk e", all(timeout)},
		{"SELECT zeroblob(1000000000)", all(engine)},
		{"SELECT length(randomblob(2000000000))", all(engine)},
		{"SELECT replace(hex(zeroblob(20000000)), '0', '00000000')", all(engine)},
		{"SELECT length(zeroblob(30000000) || zeroblob(30000000))", all(engine)},
		{"SELECT length(printf('%.*c', 100000000, 'x'))", all(engine)},
		{"UPDATE notes SET body = zeroblob(2000000000)", tiers(use("write_query"), engine, engine)},
		{"SELECT " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000), all(engine)},
		{"SELECT 1" + strings.Repeat(" + 1", 100000), all(engine)},
	}
}
