package domain

import "fmt"

// WriteRequest is one statement for the write or destructive tier.
type WriteRequest struct {
	// Tier is TierWrite or TierDestructive.
	Tier Tier
	// SQL is exactly one statement.
	SQL string
	// MaxUpdateRows is the UPDATE guard; 0 means no guard.
	MaxUpdateRows int
	// Approved says a person approved the statement on a measured impact
	// that deleted or changed ApprovedRows rows: the runner rolls back a
	// run that deletes or changes more (the database changed in between).
	Approved     bool
	ApprovedRows int64
	// Audit, when set, builds the call's audit entry from what the
	// statement did; the runner inserts it just before COMMIT, in the same
	// transaction, so the write and its audit row commit together or not
	// at all.
	Audit func(WriteResult) AuditEntry
}

// WriteResult says what a write statement did.
type WriteResult struct {
	// Schema is true when the statement was DDL.
	Schema bool
	// RowsAffected is the number of rows the statement changed, or -1 when it
	// changed no rows of its own kind (DDL, a plain SELECT).
	RowsAffected int64
	// LastInsertRowID is the rowid of the last row this statement inserted
	// into a rowid table, or 0.
	LastInsertRowID int64
	// HasColumns is true when the statement produced a result set.
	HasColumns bool
}

// Summary renders the first line of a write tool's result (docs/decisions.md#write-results).
func (r WriteResult) Summary() string {
	switch {
	case r.Schema:
		return "ok: schema statement executed"
	case r.RowsAffected >= 0:
		s := "ok: " + itoa(r.RowsAffected) + " rows affected"
		if r.LastInsertRowID != 0 {
			s += " (last_insert_rowid=" + itoa(r.LastInsertRowID) + ")"
		}
		return s
	default:
		return "ok: statement executed"
	}
}

// Compiled describes a statement that compiled under a tier without running.
type Compiled struct {
	// Actions are the authorizer actions the statement asked for.
	Actions []Action
	// Columns is the number of result columns.
	Columns int
	// Empty is true when the text held no statement (only comments).
	Empty bool
	// ReadOnly is true when SQLite says the compiled statement cannot
	// write the database (sqlite3_stmt_readonly: a plain SELECT).
	ReadOnly bool
}

// Has reports whether the statement asked for action a.
func (c Compiled) Has(a Action) bool {
	for _, x := range c.Actions {
		if x == a {
			return true
		}
	}
	return false
}

// GuardError is the UPDATE guard's refusal (docs/decisions.md#write-results).
func GuardError(rows int64, limit int) *Error {
	return Errorf(ErrGuard, "UPDATE would change %d rows, above the "+ToolWriteQuery+" cap of %d; rolled back. Add a WHERE clause, or use "+ToolDestructiveQuery+" if you really mean every row.", rows, limit)
}

// GuardBoundError is the UPDATE guard's refusal when the count is an upper
// bound: a trigger wrote a virtual table, whose rows SQLite counts only
// together with the module's own bookkeeping.
func GuardBoundError(rows int64, limit int) *Error {
	return Errorf(ErrGuard, "UPDATE would change up to %d rows (a trigger writes a virtual table, whose changed rows can only be counted from above), above the "+ToolWriteQuery+" cap of %d; rolled back. Add a WHERE clause, raise --max-update-rows, or use "+ToolDestructiveQuery+" if you really mean it.", rows, limit)
}

// ApprovalExceededError refuses a run that would delete or change more
// rows than the person approved.
func ApprovalExceededError(rows, approved int64) *Error {
	return Errorf(ErrConflict, "the statement would now delete or change %d rows, more than the %d the person approved (the database changed after it was measured); rolled back, nothing changed. Call it again so the person is asked about what it does now", rows, approved)
}

// IndexWipeMessage refuses, in write_query, a full-text command that
// empties or rebuilds the index of table (FTS5 'delete-all', 'rebuild'; on
// a contentless table that empties the data itself).
func IndexWipeMessage(table string) string {
	return fmt.Sprintf("this statement empties or rebuilds the full-text index of %s (the 'delete-all' or 'rebuild' command, or a trigger that sends one); that is not allowed in "+ToolWriteQuery+"; use "+ToolDestructiveQuery+" (it snapshots the database first)", Quote(table))
}
