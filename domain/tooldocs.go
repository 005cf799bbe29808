package domain

import "fmt"

// The tools' descriptions (Tool.Describe): what the tool does to the world
// first, then what it returns and how it fails, then when to use a
// sibling instead. They quote the live limits so the agent sees the real
// caps. Every session pays for them before its first call, so each says
// this once and briefly (docs/decisions.md#tools-list-budget).

// readQueryBody is read_query's description up to what to use for writes.
func readQueryBody(l Limits) string {
	return fmt.Sprintf("Run one read-only SQL statement (SELECT, WITH, EXPLAIN, PRAGMA); returns CSV and a '# N rows' trailer saying whether it was cut and which offset reads on. "+
		"NULL is an empty cell, '' is \"\". Capped at %d bytes, %d characters per cell, %ss.",
		l.MaxResultBytes, l.MaxCellChars, FormatSeconds(l.QueryTimeout))
}

func describeReadQuery(l Limits) string {
	return readQueryBody(l) + " Writes are refused: use " + ToolWriteQuery + " or " + ToolDestructiveQuery + "."
}

func describeReadQueryReadOnly(l Limits) string {
	return readQueryBody(l) + " Writes are refused: this server is read-only."
}

func describeWriteQuery(l Limits) string {
	return fmt.Sprintf("Insert, update, upsert, or create a table, index or virtual table, in one transaction; returns 'ok: N rows affected' and RETURNING rows as CSV. "+
		"An UPDATE of more than %d rows is rolled back. DELETE, DROP, ALTER, triggers: "+ToolDestructiveQuery+"; views: "+ToolCreateView+".", l.MaxUpdateRows)
}

func describeDestructiveQuery(Limits) string {
	return "Run one DELETE, DROP, ALTER TABLE or CREATE TRIGGER after snapshotting the database; returns the snapshot path. " +
		"The user may be asked first; if they decline, do not retry: tell them what you wanted and why. Inserts and updates: " + ToolWriteQuery + "."
}

func describeListTables(Limits) string {
	return "List tables and views as CSV (name, type, system, rows; system=1: the server's or Litestream's). " +
		"Start here; columns: " + ToolDescribeTable + "."
}

func describeDescribeTable(Limits) string {
	return "Show one table's or view's columns (type, NOT NULL, default, key), foreign keys, indexes, row count and CREATE statement. " +
		"Names: " + ToolListTables + "."
}

func describeGetSchema(l Limits) string {
	return fmt.Sprintf("Return every CREATE statement (tables, indexes, views, triggers); views carry their '-- description:' line: saved queries of earlier sessions. "+
		"Capped at %d bytes.", l.MaxResultBytes)
}

func describeCreateView(Limits) string {
	return "Save a SELECT as a view with a one-line description that later sessions see in " + ToolGetSchema + "; use it when a join or filter repeats."
}

func describeAppendEvent(Limits) string {
	return "Append an event (decision, result, error, note) to the hash-chained, append-only memory; returns its id. " +
		"Use " + ToolCheckpoint + " at milestones."
}

func describeRetractEvent(Limits) string {
	return "Withdraw a wrong event: it leaves " + ToolGetResumeContext + " and " + ToolSearchMemory + ", and stays in the chain with the reason."
}

func describeVerifyChain(Limits) string {
	return "Recompute every event hash of the memory log; returns JSON (ok, events, head_id, head_hash; break_at_id and reason when broken)."
}

func describeCheckpoint(Limits) string {
	return "Save where the work stands, pinned to the chain's head and sealed into it; the next session's " + ToolGetResumeContext + " starts from the latest. " +
		"Write one at milestones and before the context runs out."
}

func describeResume(l Limits) string {
	return fmt.Sprintf("Call first in a new session or after compaction: the latest checkpoint summary, then the events since it as CSV (id, ts, kind, content), after verifying the chain. "+
		"Capped at %d bytes, keeping the newest. Older: "+ToolReadQuery+" on memory_events.", l.ResumeBytes())
}

func describeSearchText(l Limits) string {
	return fmt.Sprintf("Regex search in text columns: where filters rows with SQL first (at most %d), then values are matched; returns CSV (key, column, snippet) and a match count.", l.SearchCandidates)
}

func describeSnapshot(Limits) string {
	return "Copy the database into the snapshot folder now (copies beyond retention are removed); returns its path. " +
		ToolDestructiveQuery + " snapshots by itself."
}

func describeSearchMemory(l Limits) string {
	return fmt.Sprintf("Full-text search (BM25) of event contents and checkpoint summaries. "+
		"Returns CSV (source, id, ts, kind, session, snippet), matches in [brackets]; full text: "+ToolReadQuery+" by id on memory_events or memory_checkpoints. "+
		"At most %d words; capped at %d bytes. Latest state: "+ToolGetResumeContext+".",
		MaxMemoryQueryTerms, l.MaxResultBytes)
}
