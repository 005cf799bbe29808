package webui

import (
	"context"
	"errors"
)

// errNoAudit is the audit page's note when query_log is elsewhere.
var errNoAudit = errors.New("the audit log is not in a SQLite file here: in --read-only mode pass --audit-db FILE to see it")

// rows runs one read-tier query on r and hands each row to fn.
func rows(ctx context.Context, r Reader, sql string, fn func([]any)) error {
	if r == nil {
		return errNoAudit
	}
	return r.Read(ctx, sql, func([]string) {}, func(row []any) bool {
		fn(row)
		return true
	})
}
