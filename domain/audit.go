package domain

// AuditEntry is one row of the audit log (docs/decisions.md#audit-log).
type AuditEntry struct {
	TS      string
	Session string
	Tool    string
	// Query is the SQL or other subject of the call; nil for none.
	Query *string
	OK    bool
	// Rows is the row count reported for the call; nil for none.
	Rows *int64
	// Error is the message the agent saw; "" on success.
	Error      string
	DurationMS int64
	// Detail is a JSON object (UTF-8, no ASCII escaping), or "".
	Detail string
}
