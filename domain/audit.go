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

// Late returns e marked as a late row: its call could not commit it by the
// call's deadline (reason is why: the audit sink's error), so the call
// failed without its data and the row was kept in memory and written once
// the log took it. The mark is in Detail:
//
//	{"late": true, "late_reason": "<reason>"}
//
// with "lost_before": n added when n rows owed before it were never written
// (the backlog was full), and "detail": <the call's own detail> when it had
// one. TS and DurationMS stay the call's own.
func (e AuditEntry) Late(reason string, lostBefore int) AuditEntry {
	d := Detail{{Key: "late", Value: true}, {Key: "late_reason", Value: reason}}
	if lostBefore > 0 {
		d = append(d, Field{Key: "lost_before", Value: lostBefore})
	}
	if e.Detail != "" {
		d = append(d, Field{Key: "detail", Value: RawJSON(e.Detail)})
	}
	e.Detail = d.String()
	return e
}

// Size is roughly what e holds in memory, for bounding a backlog of rows.
func (e AuditEntry) Size() int {
	n := 128 + len(e.TS) + len(e.Session) + len(e.Tool) + len(e.Error) + len(e.Detail)
	if e.Query != nil {
		n += len(*e.Query)
	}
	return n
}
