package domain

import "fmt"

// The tools' descriptions (Tool.Describe): what the tool does to the world
// first, then what it returns and how it fails, then when to use a
// sibling instead. They quote the live limits so the agent sees the real
// caps.

// outputCaps is the sentence on read_query's caps.
func outputCaps(l Limits) string {
	return fmt.Sprintf("Output is capped at %d bytes and %d characters per cell, and the trailer says when anything was cut. Each call is cancelled after %ss.",
		l.MaxResultBytes, l.MaxCellChars, FormatSeconds(l.QueryTimeout))
}

func describeReadQuery(l Limits) string {
	return "Run one read-only SQL statement (SELECT, WITH, EXPLAIN, introspection PRAGMA) and get CSV: a header, the rows, and a '# N rows' trailer that says whether the limit or the byte cap cut the result and which offset reads the next page. " +
		"NULL is an empty cell (a row of one NULL is an empty line) and the empty string is \"\", so the two never look alike. " +
		outputCaps(l) + " Writes are refused at compile time. Failures come back as the policy's or SQLite's message; fix the statement and retry."
}

func describeWriteQuery(l Limits) string {
	return fmt.Sprintf("Insert, update, upsert, REPLACE, or add a table, index or FTS/rtree virtual table, in one transaction; returns 'ok: N rows affected' and any RETURNING rows as CSV. "+
		"An UPDATE (however written) that would change more than %d rows is rolled back. DELETE, DROP, ALTER and triggers are refused: use "+ToolDestructiveQuery+", which snapshots the database first. Views: use "+ToolCreateView+". Use "+ToolReadQuery+" for reads.", l.MaxUpdateRows)
}

func describeDestructiveQuery(Limits) string {
	return "Run one DELETE, DROP, ALTER TABLE or CREATE TRIGGER after writing a snapshot of the whole database file; the result names the snapshot path. " +
		"The statement is compiled and tried in a rolled-back run first, so an error costs no snapshot, and if the snapshot cannot be written nothing runs. " +
		"The user may be asked first, shown what the statement would do and your reason; if they decline, nothing runs: do not retry it, tell the user what you wanted and why. " +
		"Requires a reason. No row cap applies: prefer " + ToolWriteQuery + " for inserts and updates."
}

func describeListTables(Limits) string {
	return "List the tables and views as CSV (name, type, system, rows); system=1 marks the server's own memory and audit objects. " +
		"Start here to learn what exists; then " + ToolDescribeTable + " for one table's columns, or " + ToolGetSchema + " for every CREATE statement. Row counts scan each table: pass include_row_counts=false on a large database."
}

func describeDescribeTable(Limits) string {
	return "Show one table's or view's columns (type, NOT NULL, default, primary key), foreign keys, indexes, row count and CREATE statement. " +
		"Cheaper than guessing column names; use " + ToolListTables + " to find names and " + ToolGetSchema + " for the whole database at once. Fails with a hint when the name does not exist."
}

func describeGetSchema(l Limits) string {
	return fmt.Sprintf("Return the CREATE statement of every table, index, view and trigger, views with their '-- description:' lines: the saved query skills of earlier sessions. "+
		"Server objects are hidden unless include_system=true. Capped at %d bytes, saying so when cut. Use "+ToolDescribeTable+" for one table, "+ToolListTables+" for names and row counts.", l.MaxResultBytes)
}

func describeCreateView(Limits) string {
	return "Save a SELECT as a view with a one-line description stored inside it, so later sessions find it in " + ToolGetSchema + " and query it with " + ToolReadQuery + ": use it when a join or filter repeats. " +
		"The SELECT is checked as a read-only query first. An existing view is only redefined with replace=true (its old SQL is kept in query_log); tables and server objects are never replaced."
}

func describeAppendEvent(l Limits) string {
	return "Append one event (a decision, result, error or note) to the append-only, hash-chained memory log; the server stamps the time and session and computes the hash. " +
		"Returns the event id and hash prefix. Events cannot be edited or deleted by any tool. Use " + ToolCheckpoint + " at milestones, " + ToolGetResumeContext + " to read the log back."
}

func describeVerifyChain(Limits) string {
	return "Recompute every event hash of the memory log and report whether the chain is intact, as JSON (ok, events, head_id, head_hash, and break_at_id with a reason when broken). Reads only; " + ToolGetResumeContext + " runs the same check. " +
		"This catches rows changed, removed or inserted without recomputing hashes; someone who rewrites the file and recomputes every hash is caught only by expected_head: pass a head_hash you kept outside the database, and the chain must still contain it (expected_head_id says where)."
}

func describeCheckpoint(Limits) string {
	return "Write a checkpoint: a summary of where the work stands, pinned to the current head of the event chain. " +
		"Write one at milestones and before the context runs out; the next session's " + ToolGetResumeContext + " starts from the latest checkpoint. Returns the checkpoint id and the event it covers. " +
		"The server seals the checkpoint into the chain with an event of kind 'checkpoint' right after it, so the chain's hashes cover the summary."
}

func describeResume(l Limits) string {
	return fmt.Sprintf("Call first in a new session or after compaction: returns the latest checkpoint summary, then the events since it as CSV (id, ts, kind, content), oldest first, after verifying the whole chain (a broken chain, a checkpoint that no longer matches, and whether the chain's seal covers the summary are reported). "+
		"Capped at %d bytes: the newest events are kept and the output says how many older ones were dropped. Use "+ToolReadQuery+" on memory_events for older history.", l.ResumeBytes())
}

func describeSearchText(l Limits) string {
	return fmt.Sprintf("Search text columns with a regular expression: the where argument narrows the rows with SQL first (at most %d candidate rows), then each value is matched; returns CSV (key, column, snippet) with a trailer counting matches, rows and candidates. "+
		"Newlines inside values show as ⏎. Use "+ToolReadQuery+" with LIKE or = for exact lookups; this tool is for patterns inside long text.", l.SearchCandidates)
}

func describeSnapshot(Limits) string {
	return "Write a complete, consistent copy of the database file now (SQLite online backup) into the snapshot folder and return its path; old snapshots beyond the retention count are removed. " +
		ToolDestructiveQuery + " already snapshots by itself; call this before a risky series of writes. Fails if the copy cannot be written."
}
