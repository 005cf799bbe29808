package attack_test

// Attacks through the schema: triggers and views that hide writes, the
// schema and internal tables, the server's own tables, virtual tables and
// their shadow tables, and the UPDATE guard.

var triggersAndViews = []attack{
	// The seeded triggers hide a write the tier may forbid; their bodies are
	// authorized when they fire, as part of the statement that fires them.
	{"INSERT INTO trap (v) VALUES ('x')", tiers(use("write_query"), use("destructive_query"), allowed)},
	{"UPDATE trap SET v = 'y'", tiers(use("write_query"), policy, policy)},
	{"DELETE FROM trap", tiers(use("destructive_query"), use("destructive_query"), policy)},
	{"INSERT INTO cp_trap DEFAULT VALUES", tiers(use("write_query"), policy, policy)},
	{"UPDATE v_notes SET title = 'x'", tiers(use("write_query"), use("destructive_query"), allowed)},
	{"INSERT INTO v_notes (title) VALUES ('x')", tiers(use("write_query"), policy, policy)},
	// No INSTEAD OF DELETE trigger: SQLite refuses before any policy runs.
	{"DELETE FROM v_notes", all(engine)},
	{"CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN DELETE FROM tags; END", destroyTier},
	// A body that writes the server tables may be created, but never fires.
	{"CREATE TRIGGER t1 BEFORE INSERT ON notes BEGIN INSERT INTO query_log (ts, session, tool, ok, duration_ms) VALUES ('t', 's', 'x', 1, 0); END", tiers(use("destructive_query"), use("destructive_query"), laterPolicy)},
	{"CREATE TRIGGER t1 AFTER UPDATE ON notes BEGIN UPDATE memory_events SET content = 'x'; END", tiers(use("destructive_query"), use("destructive_query"), laterPolicy)},
	{"CREATE TRIGGER t1 AFTER DELETE ON notes BEGIN DELETE FROM memory_checkpoints; END", tiers(use("destructive_query"), use("destructive_query"), laterPolicy)},
	{"CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN UPDATE sqlite_master SET sql = ''; END", tiers(use("destructive_query"), use("destructive_query"), verdict{kind: engine.kind, either: true})},
	// Triggers on the server objects themselves.
	{"CREATE TRIGGER t1 AFTER INSERT ON query_log BEGIN SELECT 1; END", all(policy)},
	{"CREATE TRIGGER t1 BEFORE DELETE ON memory_events BEGIN SELECT 1; END", all(policy)},
	{"CREATE TRIGGER t1 INSTEAD OF INSERT ON query_errors BEGIN SELECT 1; END", all(policy)},
	{`CREATE TRIGGER "Query_Log_evil" AFTER INSERT ON "QUERY_LOG" BEGIN SELECT 1; END`, all(policy)},
	{"CREATE TRIGGER t1 AFTER INSERT ON main.memory_checkpoints BEGIN SELECT 1; END", all(policy)},
	{"DROP TRIGGER query_log_no_delete", all(policy)},
	{"DROP TRIGGER memory_events_no_update", all(policy)},
	{"DROP TRIGGER IF EXISTS memory_checkpoints_no_delete", all(policy)},
	{"DROP TRIGGER trap_purge", destroyTier},
	{"CREATE VIEW v AS SELECT 1", viewTool},
	{"CREATE VIEW main.v AS SELECT * FROM notes", viewTool},
	{"CREATE VIEW IF NOT EXISTS query_errors AS SELECT 1", all(policy)},
	{"DROP VIEW v_notes", destroyTier},
	{"DROP VIEW query_errors", all(policy)},
	{"DROP VIEW IF EXISTS query_errors", all(policy)},
}

var schemaTables = []attack{
	{"UPDATE sqlite_master SET sql = 'x'", all(engine)},
	{"UPDATE sqlite_schema SET sql = replace(sql, 'notes', 'evil') WHERE name = 'notes'", all(engine)},
	{"INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x (a)')", all(engine)},
	{"DELETE FROM sqlite_schema WHERE name = 'notes'", all(engine)},
	{"DELETE FROM main.SQLITE_MASTER", all(engine)},
	{"DROP TABLE sqlite_master", tiers(use("destructive_query"), use("destructive_query"), engine)},
	{"DROP TABLE sqlite_schema", tiers(use("destructive_query"), use("destructive_query"), engine)},
	{"DROP TABLE sqlite_sequence", tiers(use("destructive_query"), use("destructive_query"), engine)},
	{"ALTER TABLE sqlite_master RENAME TO x", all(engine)},
	{"ALTER TABLE sqlite_sequence ADD COLUMN x", all(engine)},
	{"CREATE TABLE sqlite_x (a)", all(engine)},
	{"CREATE INDEX ix ON sqlite_master(name)", all(engine)},
	{"CREATE INDEX ix ON sqlite_sequence(seq)", all(engine)},
	{"CREATE TRIGGER t1 AFTER INSERT ON sqlite_master BEGIN SELECT 1; END", all(engine)},
	// sqlite_sequence is treated as an ordinary table.
	{"DELETE FROM sqlite_sequence", destroyTier},
	{"UPDATE sqlite_sequence SET seq = 0", writeTier},
	{"INSERT INTO sqlite_stat1 VALUES ('notes', NULL, '1')", all(engine)},
	// Raw pages are never data.
	{"UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 1", all(policy)},
	{"INSERT INTO sqlite_dbpage VALUES (1, zeroblob(4096))", all(policy)},
	{"INSERT INTO sqlite_dbpage (pgno, data) SELECT pgno, data FROM sqlite_dbpage", all(policy)},
	{"DELETE FROM sqlite_dbpage", all(policy)},
	{"SELECT pgno FROM sqlite_dbpage LIMIT 1", all(allowed)},
}

var serverTableAttacks = []attack{
	{"INSERT INTO query_log (ts, session, tool, ok, duration_ms) VALUES ('t', 's', 'x', 1, 0)", all(policy)},
	{"INSERT INTO memory_events (ts, session, kind, content, prev_hash, hash) VALUES ('t', 's', 'k', 'c', 'p', 'h')", all(policy)},
	{"INSERT INTO memory_checkpoints (ts, session, summary, last_event_id, head_hash) VALUES ('t', 's', 'x', 1, 'h')", all(policy)},
	{"INSERT OR IGNORE INTO memory_events SELECT * FROM memory_events", all(policy)},
	{"REPLACE INTO memory_events SELECT * FROM memory_events", all(policy)},
	{"INSERT INTO query_log (id, ts, session, tool, ok, duration_ms) SELECT id, ts, session, tool, 1, 0 FROM query_log WHERE true ON CONFLICT(id) DO UPDATE SET ok = 1", all(policy)},
	{"UPDATE query_log SET ok = 1", all(policy)},
	{"UPDATE memory_events SET content = 'rewritten' WHERE id = 1", all(policy)},
	{"UPDATE memory_checkpoints SET summary = 'x'", all(policy)},
	{"DELETE FROM query_log", all(policy)},
	{"DELETE FROM memory_events WHERE id = 1", all(policy)},
	{"DELETE FROM memory_checkpoints", all(policy)},
	{"UPDATE query_errors SET error = NULL", all(engine)},
	{"DELETE FROM query_errors", all(engine)},
	{"INSERT INTO query_errors (id) VALUES (1)", all(policy)},
	{"DROP TABLE query_log", all(policy)},
	{"DROP TABLE IF EXISTS memory_events", all(policy)},
	{`DROP TABLE main."MEMORY_CHECKPOINTS"`, all(policy)},
	{"DROP INDEX query_log_ts", all(policy)},
	{"ALTER TABLE query_log RENAME TO old_log", all(policy)},
	{"ALTER TABLE memory_events ADD COLUMN forged TEXT", all(policy)},
	{"ALTER TABLE memory_events DROP COLUMN content", all(policy)},
	{"ALTER TABLE memory_checkpoints RENAME COLUMN summary TO s", all(policy)},
	{"CREATE TABLE query_log (a)", all(policy)},
	{"CREATE TABLE IF NOT EXISTS Query_Log (a)", all(policy)},
	{"CREATE TABLE query_errors (a)", all(policy)},
	{"CREATE INDEX evil ON query_log(tool)", all(policy)},
	{"CREATE UNIQUE INDEX evil ON memory_events(ts)", all(policy)},
	{"CREATE VIRTUAL TABLE memory_events USING rtree(id, a, b)", all(engine)},
	{"ALTER TABLE notes RENAME TO query_log", all(engine)},
	{"ALTER TABLE notes RENAME TO Query_Errors", all(engine)},
	// Reading the server tables is allowed everywhere.
	{"CREATE TABLE log_copy AS SELECT * FROM query_log", writeTier},
	{"INSERT INTO notes (title) SELECT content FROM memory_events", writeTier},
	{"SELECT * FROM query_log", all(allowed)},
	{"REINDEX query_log", writeTier},
}

var virtualTables = []attack{
	// Real shadow tables: defensive mode refuses direct writes.
	{"DELETE FROM docs_data", all(engine)},
	{"INSERT INTO docs_config VALUES ('version', 99)", all(engine)},
	{"UPDATE docs_content SET c1 = 'x'", all(engine)},
	{"DELETE FROM docs_idx", all(engine)},
	{"INSERT INTO docs_docsize VALUES (99, x'00')", all(engine)},
	{"DELETE FROM boxes_node", all(engine)},
	{"UPDATE boxes_rowid SET nodeno = 9", all(engine)},
	{"DELETE FROM boxes_parent", all(engine)},
	{"DROP TABLE docs_data", tiers(use("destructive_query"), use("destructive_query"), engine)},
	{"ALTER TABLE docs_data RENAME TO x", all(engine)},
	{"CREATE TRIGGER t1 AFTER INSERT ON docs_data BEGIN DELETE FROM notes; END", all(engine)},
	// A regular table that merely looks like a shadow table is protected
	// like any other.
	{"DELETE FROM docs_stat", destroyTier},
	{"UPDATE docs_stat SET n = 0", writeTier},
	{"DELETE FROM docs", destroyTier},
	{"DELETE FROM boxes", destroyTier},
	{"DROP TABLE bigdocs", destroyTier},
	{"UPDATE docs SET body = 'x' WHERE rowid = 1", writeTier},
	{"INSERT INTO docs (docs) VALUES ('delete-all')", tiers(use("write_query"), engine, engine)},
	{"INSERT INTO docs (docs) VALUES ('optimize')", writeTier},
	// 'rebuild' (and 'delete-all' where the table allows it) empties the
	// index: destructive_query, however the command is spelled.
	{"INSERT INTO docs (docs) VALUES ('rebuild')", tiers(use("write_query"), use("destructive_query"), allowed)},
	{"INSERT INTO docs (docs) SELECT 'rebu' || 'ild'", tiers(use("write_query"), use("destructive_query"), allowed)},
	{"INSERT INTO docs (title, docs) VALUES (NULL, 'REBUILD')", tiers(use("write_query"), use("destructive_query"), allowed)},
	{"WITH c(x) AS (SELECT 'rebuild') INSERT INTO docs (docs) SELECT x FROM c", tiers(use("write_query"), use("destructive_query"), allowed)},
	// Commands that only change the index's layout or check it stay.
	{"INSERT INTO docs (docs, rank) VALUES ('merge', 10)", writeTier},
	{"INSERT INTO docs (docs, rank) VALUES ('automerge', 4)", writeTier},
	{"INSERT INTO docs (docs) VALUES ('integrity-check')", writeTier},
	{"INSERT INTO docs (docs, rank) VALUES ('rank', 'bm25(10.0, 5.0)')", writeTier},
	{"CREATE VIRTUAL TABLE e USING fts5vocab(docs, 'row')", tiers(use("write_query"), policy, policy)},
	{"CREATE VIRTUAL TABLE e USING dbstat", tiers(use("write_query"), policy, policy)},
	{"CREATE VIRTUAL TABLE e USING sqlite_dbpage", tiers(use("write_query"), policy, policy)},
	{"CREATE VIRTUAL TABLE e USING json_each", tiers(use("write_query"), policy, policy)},
	{"CREATE VIRTUAL TABLE e USING nosuchmodule(a)", tiers(use("write_query"), policy, policy)},
	{"CREATE VIRTUAL TABLE e USING csv(filename='/etc/passwd')", tiers(use("write_query"), policy, policy)},
	{"CREATE VIRTUAL TABLE e USING FTS5(a)", writeTier},
	{`CREATE VIRTUAL TABLE e USING "fts5"(a)`, writeTier},
	{"CREATE VIRTUAL TABLE e USING rtree(id, a, b)", writeTier},
	// Allowed by the policy, but this build of SQLite has no FTS3/FTS4.
	{"CREATE VIRTUAL TABLE e USING fts4(a)", tiers(use("write_query"), engine, engine)},
	{"CREATE VIRTUAL TABLE e USING fts3(a)", tiers(use("write_query"), engine, engine)},
	{"CREATE VIRTUAL TABLE e USING fts5(title, content='notes', content_rowid='id')", writeTier},
	{"CREATE VIRTUAL TABLE e USING fts5(query, content='query_log')", writeTier},
}

// updateGuard are statements that change more rows than write_query's cap
// (50 in the corpus) however they are spelled; destructive_query has no cap.
var updateGuard = []attack{
	{"UPDATE bulk SET v = v + 1", tiers(use("write_query"), guarded, allowed)},
	{"WITH x AS (SELECT 1) UPDATE bulk SET v = v + 1", tiers(use("write_query"), guarded, allowed)},
	{"UPDATE bulk SET v = v WHERE id > 0", tiers(use("write_query"), guarded, allowed)},
	{"REPLACE INTO bulk SELECT * FROM bulk", tiers(use("write_query"), guarded, allowed)},
	{"INSERT INTO bulk SELECT * FROM bulk WHERE true ON CONFLICT(id) DO UPDATE SET v = excluded.v + 1", tiers(use("write_query"), guarded, allowed)},
	{"UPDATE bulk_wr SET v = v + 1", tiers(use("write_query"), guarded, allowed)},
	{"REPLACE INTO bulk_wr SELECT * FROM bulk_wr", tiers(use("write_query"), guarded, allowed)},
	{"INSERT INTO amp DEFAULT VALUES", tiers(use("write_query"), guarded, allowed)},
	{"UPDATE bigdocs SET body = 'x'", tiers(use("write_query"), guarded, allowed)},
	{"UPDATE bigboxes SET a = a + 1", tiers(use("write_query"), guarded, allowed)},
	{"INSERT OR REPLACE INTO bigdocs (rowid, body) SELECT rowid, body FROM bigdocs", tiers(use("write_query"), guarded, allowed)},
	{"INSERT OR REPLACE INTO bigboxes SELECT * FROM bigboxes", tiers(use("write_query"), guarded, allowed)},
	{"UPDATE bulk SET v = v + 1 WHERE id <= 50", writeTier},
}
