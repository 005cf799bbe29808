package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

var logCommand = &command{
	name:    "log",
	summary: "Prints the most recent audit rows (query_log), oldest first, like tail.",
	help: `Reading the log is not itself logged. In --read-only mode the rows are read from
--audit-db (without it, the audit lines went to the server's stderr).

  --limit N                 how many rows (default 20)
  --failures                only failed calls
  --tool NAME               only calls of this tool (e.g. read_query)
  --since WHEN              only calls since WHEN: a duration back from now (90m,
                            24h) or a UTC time (2026-01-31, 2026-01-31T12:00:00Z)
  --json                    {"rows": [{"id", "ts", "session", "tool", "ok", "rows",
                            "duration_ms", "query", "error", "detail"}]}, where
                            rows, query, error and detail may be null and
                            detail is the stored JSON object
`,
	flags: func(fs *flag.FlagSet, o *settings.CLIOptions) {
		fs.IntVar(&o.Limit, "limit", 20, "")
		fs.BoolVar(&o.Failures, "failures", false, "")
		fs.StringVar(&o.Tool, "tool", "", "")
		fs.StringVar(&o.Since, "since", "", "")
	},
	run: runLog,
	use: func(cfg settings.Config) dbUse {
		if cfg.ReadOnly {
			return dbUse{} // the rows are in --audit-db
		}
		return dbUse{needs: auditTables}
	},
}

// auditRow is one query_log row as --json prints it.
type auditRow struct {
	ID         int64   `json:"id"`
	TS         string  `json:"ts"`
	Session    string  `json:"session"`
	Tool       string  `json:"tool"`
	OK         bool    `json:"ok"`
	Rows       *int64  `json:"rows"`
	DurationMS int64   `json:"duration_ms"`
	Query      *string `json:"query"`
	Error      *string `json:"error"`
	Detail     *string `json:"-"`
}

// MarshalJSON writes the row with detail as the JSON object the server
// stored, not a string holding it; a detail that is not one stays a string.
func (r auditRow) MarshalJSON() ([]byte, error) {
	type plain auditRow
	var detail any = r.Detail
	if r.Detail != nil && strings.HasPrefix(strings.TrimSpace(*r.Detail), "{") && json.Valid([]byte(*r.Detail)) {
		detail = json.RawMessage(*r.Detail)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as printJSON: a query's '<' stays '<'
	err := enc.Encode(struct {
		plain
		Detail any `json:"detail"`
	}{plain(r), detail})
	return bytes.TrimRight(b.Bytes(), "\n"), err
}

// logSQL is the query for the filters; every value in it is a quoted SQL
// literal or a number (the read tier takes no bound parameters).
func logSQL(o settings.CLIOptions, now time.Time) (string, error) {
	if o.Limit < 1 || o.Limit > 100_000 {
		return "", settings.Usagef("invalid value %d for --limit: want 1 to 100000", o.Limit)
	}
	var where []string
	if o.Failures {
		where = append(where, "ok = 0")
	}
	if o.Tool != "" {
		where = append(where, "tool = "+sqlString(o.Tool))
	}
	if o.Since != "" {
		since, err := parseSince(o.Since, now)
		if err != nil {
			return "", err
		}
		where = append(where, "ts >= "+sqlString(domain.FormatTS(since)))
	}
	q := "SELECT id, ts, session, tool, ok, rows, duration_ms, query, error, detail FROM query_log"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q = "SELECT * FROM (" + q + " ORDER BY id DESC LIMIT " + strconv.Itoa(o.Limit) + ") ORDER BY id"
	return q, nil
}

// sqlString is s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// parseSince reads --since: a duration back from now, or a UTC time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, settings.Usagef("invalid value %q for --since: want a duration such as 90m or 24h, or a UTC time such as 2026-01-31 or 2026-01-31T12:00:00Z", s)
}

func runLog(ctx context.Context, cfg settings.Config, _ io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	q, err := logSQL(cfg.CLI, time.Now())
	if err != nil {
		return err
	}
	if err := needExisting(cfg); err != nil {
		return err
	}
	if cfg.ReadOnly && cfg.AuditDB == "" {
		return settings.Usagef("in --read-only mode the audit log is not in the database: pass --audit-db FILE to read the one the server writes")
	}
	w, err := wire(ctx, cfg, cliLogger(cfg, stderr), stderr, newSession(systemClock{}.Now()))
	if err != nil {
		return err
	}
	defer w.Close()
	rows := []auditRow{}
	cctx, cancel := context.WithTimeout(ctx, cfg.Limits.QueryTimeout)
	defer cancel()
	err = sqlite.NewStatementRunner(w.AuditStore).Read(cctx, q, func([]string) {}, func(v []any) bool {
		rows = append(rows, auditRow{
			ID: asInt(v[0]), TS: asText(v[1]), Session: asText(v[2]), Tool: asText(v[3]), OK: asInt(v[4]) != 0,
			Rows: optInt(v[5]), DurationMS: asInt(v[6]), Query: optText(v[7]), Error: optText(v[8]), Detail: optText(v[9]),
		})
		return true
	})
	if err != nil {
		return fmt.Errorf("read query_log: %w (raise --query-timeout if it timed out)", err)
	}
	if cfg.CLI.JSON {
		return printJSON(stdout, map[string]any{"rows": rows})
	}
	for _, r := range rows {
		if _, err := io.WriteString(stdout, formatAuditRow(r)); err != nil {
			return err
		}
	}
	return nil
}

// formatAuditRow is one row as plain text: a header line, then the query
// and the error or detail, indented.
func formatAuditRow(r auditRow) string {
	status := "ok"
	if !r.OK {
		status = "FAILED"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s %s %s %dms", r.ID, r.TS, r.Session, r.Tool, status, r.DurationMS)
	if r.Rows != nil {
		fmt.Fprintf(&b, " rows=%d", *r.Rows)
	}
	b.WriteByte('\n')
	for _, line := range []*string{r.Query, r.Error, r.Detail} {
		if line != nil && *line != "" {
			b.WriteString("    " + strings.ReplaceAll(*line, "\n", "\n    ") + "\n")
		}
	}
	return b.String()
}

func asInt(v any) int64 {
	n, _ := v.(int64)
	return n
}

func asText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case domain.LongText:
		return x.Head + "…"
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func optInt(v any) *int64 {
	if n, ok := v.(int64); ok {
		return &n
	}
	return nil
}

func optText(v any) *string {
	if v == nil {
		return nil
	}
	s := asText(v)
	return &s
}
