package attack_test

// Attacks on how a statement is spelled: comments, letter case, quoting,
// wrappers (WITH, EXPLAIN), several statements in one call, placeholders.

var commentsAndCasing = []attack{
	{"/* harmless */ INSERT INTO notes (title) VALUES ('x')", writeTier},
	{"-- a comment\nDELETE FROM notes", destroyTier},
	{"iNsErT iNtO NoTeS (title) VALUES ('x')", writeTier},
	{`DeLeTe FrOm "NOTES"`, destroyTier},
	{"DELETE/**/FROM/**/notes", destroyTier},
	{"\tDELETE\nFROM\rnotes\f", destroyTier},
	{"UPDATE[notes]SET title='x'", writeTier},
	{"UPDATE `notes` SET title = 'x'", writeTier},
	{"INSERT INTO main.notes (title) VALUES ('x')", writeTier},
	{`INSERT INTO "main"."NOTES" (title) VALUES ('x')`, writeTier},
	// Refused when compiled, even though no row would match.
	{"DELETE FROM MAIN.notes WHERE 0", destroyTier},
	{"delete from notes returning *", destroyTier},
	{"REPLACE INTO notes (id, title) VALUES (1, 'x')", writeTier},
	{"INSERT OR REPLACE INTO notes (id, title) VALUES (1, 'x')", writeTier},
	{"UPDATE notes SET title = title", writeTier},
	// The write is inside a comment or a literal: nothing but a read runs.
	{"/*/ DELETE FROM notes /*/ SELECT 1", all(allowed)},
	{"SELECT 1 /* ; DELETE FROM notes; */", all(allowed)},
	{"SELECT '; DELETE FROM notes; --'", all(allowed)},
	{`SELECT "; DELETE FROM notes"`, all(allowed)},
	{"SELECT 1 -- ; DELETE FROM notes", all(allowed)},
	// SQLite skips a byte-order mark like a space, but no other Unicode space.
	{"\ufeffDELETE FROM notes", destroyTier},
	{"\u00a0DELETE FROM notes", all(engine)},
	{"DELETE FROM Query_Log", all(policy)},
	{"UPDATE MEMORY_EVENTS SET content = 'x'", all(policy)},
	{`delete from "memory_CHECKPOINTS"`, all(policy)},
	{"INSERT INTO [query_log] (ts, session, tool, ok, duration_ms) VALUES ('t', 's', 'x', 1, 0)", all(policy)},
	{"DROP/**/TABLE/**/notes", destroyTier},
	{"dRoP tAbLe NoTeS", destroyTier},
	{"ALTER TABLE \"notes\" RENAME TO \"notes2\"", destroyTier},
	{"alter table NOTES rename column BODY to text", destroyTier},
	{"ALTER TABLE notes ADD COLUMN extra TEXT", destroyTier},
	{"ALTER TABLE tags DROP COLUMN tag", destroyTier},
	{"ALTER TABLE kv RENAME TO kv2", destroyTier},
}

var cteWrapping = []attack{
	{"WITH x AS (SELECT 1) INSERT INTO notes (title) SELECT 'x' FROM x", writeTier},
	{"WITH x AS (SELECT 1) DELETE FROM notes", destroyTier},
	{"WITH x AS (SELECT 1) UPDATE notes SET title = 'x'", writeTier},
	{"WITH d AS MATERIALIZED (SELECT id FROM notes) DELETE FROM notes WHERE id IN (SELECT id FROM d)", destroyTier},
	{"WITH x(a) AS (VALUES (1)) REPLACE INTO notes (id, title) SELECT a, 'x' FROM x", writeTier},
	{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) INSERT INTO notes (title) SELECT x FROM c", writeTier},
	{"INSERT INTO notes (title) WITH x AS (SELECT 'a') SELECT * FROM x", writeTier},
	{"WITH x AS (SELECT 1) SELECT * FROM x", all(allowed)},
	// SQLite has no DML inside a CTE or a subquery.
	{"WITH x AS (DELETE FROM notes RETURNING *) SELECT * FROM x", all(engine)},
	{"SELECT * FROM (DELETE FROM notes RETURNING id)", all(engine)},
	{"WITH x AS (SELECT 1) VACUUM", all(engine)},
	{"WITH x AS (SELECT 1) DROP TABLE notes", all(engine)},
	{"WITH x AS (SELECT 1) PRAGMA query_only = 0", all(engine)},
	{"WITH x AS (SELECT load_extension('evil')) SELECT * FROM x", all(policy)},
	{"WITH x AS (SELECT * FROM query_log) DELETE FROM query_log", all(policy)},
	{"WITH x AS (SELECT 1) INSERT INTO memory_events (ts, session, kind, content, prev_hash, hash) SELECT 't', 's', 'k', 'c', 'p', 'h' FROM x", all(policy)},
	{"WITH x AS (SELECT 1) UPDATE memory_checkpoints SET summary = 'x'", all(policy)},
	{"WITH x AS (SELECT 1) UPDATE sqlite_master SET sql = ''", all(engine)},
}

var explainWrapping = []attack{
	{"EXPLAIN DELETE FROM notes", destroyTier},
	{"EXPLAIN INSERT INTO notes (title) VALUES ('x')", writeTier},
	{"EXPLAIN QUERY PLAN DELETE FROM notes", destroyTier},
	{"EXPLAIN QUERY PLAN UPDATE notes SET title = 'x'", writeTier},
	{"/* */ explain /* */ query /* */ plan delete from notes", destroyTier},
	{"EXPLAIN DROP TABLE notes", destroyTier},
	{"EXPLAIN ALTER TABLE notes RENAME TO n2", destroyTier},
	{"EXPLAIN CREATE TABLE t (a)", writeTier},
	{"EXPLAIN CREATE VIEW v AS SELECT 1", viewTool},
	{"EXPLAIN ATTACH '{{dir}}/evil.db' AS evil", all(policy)},
	{"EXPLAIN VACUUM", all(policy)},
	{"EXPLAIN VACUUM INTO '{{dir}}/copy.db'", all(policy)},
	{"EXPLAIN PRAGMA journal_mode = delete", all(policy)},
	{"EXPLAIN PRAGMA query_only = 0", all(policy)},
	// A flag pragma takes effect while it compiles, EXPLAIN or not.
	{"EXPLAIN PRAGMA query_only = ''", all(policy)},
	{"EXPLAIN QUERY PLAN PRAGMA writable_schema = 1", all(policy)},
	{"EXPLAIN SELECT load_extension('evil')", all(policy)},
	{"EXPLAIN CREATE TEMP TABLE t (a)", all(policy)},
	{"EXPLAIN BEGIN", all(policy)},
	{"EXPLAIN DELETE FROM query_log", all(policy)},
	{"EXPLAIN UPDATE memory_events SET content = 'x'", all(policy)},
	{"EXPLAIN EXPLAIN DELETE FROM notes", all(engine)},
}

var multiStatement = []attack{
	{"SELECT 1; DELETE FROM notes", all(invalid)},
	{"SELECT 1;DELETE FROM notes", all(invalid)},
	{"SELECT 1;;", all(invalid)},
	{"SELECT 1; ; SELECT 2", all(invalid)},
	{"SELECT 1; /* c */ DELETE FROM notes", all(invalid)},
	{"SELECT 1 -- c\n; DELETE FROM notes", all(invalid)},
	{"SELECT ';'; DELETE FROM notes", all(invalid)},
	{`SELECT 1 AS "a;b"; DELETE FROM notes`, all(invalid)},
	{"SELECT 1; PRAGMA query_only = 0", all(invalid)},
	{"SELECT 1; ATTACH '{{dir}}/evil.db' AS evil", all(invalid)},
	{"SELECT 1; SELECT load_extension('evil')", all(invalid)},
	// SQLite stops at a NUL byte; what follows must not slip through.
	{"SELECT 1;\x00DELETE FROM notes", all(invalid)},
	{"SELECT 1\x00; DELETE FROM notes", all(invalid)},
	{"SELECT 1 /* \x00 */; DELETE FROM notes", all(invalid)},
	// A refused first statement is reported as what it is.
	{"INSERT INTO notes (title) VALUES ('a'); DELETE FROM notes", tiers(use("write_query"), invalid, invalid)},
	{"DELETE FROM notes; SELECT 1", tiers(use("destructive_query"), use("destructive_query"), invalid)},
	{"BEGIN; DELETE FROM notes; COMMIT", all(policy)},
	// A trigger body holds ';' between BEGIN and END.
	{"CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN SELECT 1; END; DELETE FROM notes", tiers(use("destructive_query"), use("destructive_query"), invalid)},
	{"CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN SELECT CASE WHEN 1 THEN ';' END; END; DELETE FROM notes", tiers(use("destructive_query"), use("destructive_query"), invalid)},
	{"CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN DELETE FROM tags; SELECT ';'; END", destroyTier},
	// Only comments after the one statement: that is still one statement.
	{"SELECT 1; -- trailing comment", all(allowed)},
	{"SELECT 1; /* unterminated DELETE FROM notes", all(allowed)},
	{"SELECT 1 /* unterminated", all(allowed)},
	{"-- only a comment", all(allowed)},
}

var parameters = []attack{
	{"SELECT ?", all(invalid)},
	{"SELECT ?1", all(invalid)},
	{"SELECT :x", all(invalid)},
	{"SELECT @x", all(invalid)},
	{"SELECT $x", all(invalid)},
	{"SELECT * FROM notes WHERE id = ?", all(invalid)},
	{"INSERT INTO notes (title) VALUES (?)", tiers(use("write_query"), invalid, invalid)},
	{"UPDATE notes SET title = :t WHERE id = 1", tiers(use("write_query"), invalid, invalid)},
	{"DELETE FROM notes WHERE id = $id", tiers(use("destructive_query"), use("destructive_query"), invalid)},
	{"SELECT '?', ':x', '@y', '$z'", all(allowed)},
	{`SELECT "?"`, all(allowed)},
}
