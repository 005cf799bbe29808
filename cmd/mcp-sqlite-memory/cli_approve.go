package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/approval"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The approval queue from a terminal (docs/decisions.md#confirmation):
// pending lists the questions a server waits on, approve and deny decide
// one while it waits.

var pendingCommand = &command{
	name:    "pending",
	summary: "Lists the questions a server waits on in the approval queue (--confirm-fallback queue).",
	help: `Each question is what the person would see in the client: what the statement
would do, measured by the server in a rolled-back trial run, the statement, the
agent's reason, and how to undo it. Decide with approve ID or deny ID. Opens the
file read-only and changes nothing.

  --json                    {"pending": [{"id", "ts", "session", "tool", "query",
                            "question", "expires"}]}
`,
	run: runPending,
}

var approveCommand = &command{
	name:    "approve",
	args:    "ID",
	summary: "Approves question ID of the approval queue: the waiting call runs its statement (after its snapshot).",
	help: `Only a question still waiting can be decided, and only once; the decision and
who made it are stored in the queue and as a query_log row (tool "approve").
`,
	run: func(ctx context.Context, cfg settings.Config, _ io.Reader, stdout, stderr io.Writer) error {
		return runDecide(ctx, cfg, true, stdout)
	},
	use: decideUse,
}

var denyCommand = &command{
	name:    "deny",
	args:    "ID",
	summary: "Denies question ID of the approval queue: the waiting call runs nothing and tells the agent.",
	help: `Only a question still waiting can be decided, and only once; the decision and
who made it are stored in the queue and as a query_log row (tool "deny").
`,
	run: func(ctx context.Context, cfg settings.Config, _ io.Reader, stdout, stderr io.Writer) error {
		return runDecide(ctx, cfg, false, stdout)
	},
	use: decideUse,
}

// decideUse is what approve and deny do with the database: they write the
// decision and its audit row, so they need query_log; on a database
// without it they change nothing.
func decideUse(settings.Config) dbUse { return dbUse{writes: true, needs: auditTables} }

// pendingRow is one question as --json prints it.
type pendingRow struct {
	ID       int64  `json:"id"`
	TS       string `json:"ts"`
	Session  string `json:"session"`
	Tool     string `json:"tool"`
	Query    string `json:"query"`
	Question string `json:"question"`
	Expires  string `json:"expires"`
}

func runPending(ctx context.Context, cfg settings.Config, _ io.Reader, stdout, _ io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	list, err := approvals(ctx, cfg)
	if err != nil {
		return err
	}
	if cfg.CLI.JSON {
		rows := []pendingRow{}
		for _, a := range list {
			rows = append(rows, pendingRow{ID: a.ID, TS: a.TS, Session: a.Session, Tool: a.Tool, Query: a.Query, Question: a.Question, Expires: a.Expires})
		}
		return printJSON(stdout, map[string]any{"pending": rows})
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(stdout, "no question is waiting for a decision")
		return err
	}
	var b strings.Builder
	for _, a := range list {
		fmt.Fprintf(&b, "question %d, asked %s by session %s (%s), waits until %s:\n", a.ID, a.TS, domain.Visible(a.Session), domain.Visible(a.Tool), a.Expires)
		for _, l := range strings.Split(domain.Visible(a.Question), "\n") {
			b.WriteString("  " + l + "\n")
		}
		fmt.Fprintf(&b, "decide: %[1]s approve %[2]d --db %[3]s   or   %[1]s deny %[2]d --db %[3]s\n\n", settings.ProgName, a.ID, cfg.DBPath)
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// approvals reads the waiting questions, opening the file read-only: a
// look changes nothing.
func approvals(ctx context.Context, cfg settings.Config) ([]approval.Approval, error) {
	if err := needExisting(cfg); err != nil {
		return nil, err
	}
	store, err := sqlite.Open(ctx, cfg.DBPath, sqlite.Options{ReadOnly: true, QueryTimeout: cfg.Limits.QueryTimeout, MaxCellChars: cfg.Limits.MaxCellChars})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return approval.New(store, systemClock{}).List(ctx, true, systemClock{}.Now())
}

func runDecide(ctx context.Context, cfg settings.Config, approve bool, stdout io.Writer) error {
	if err := argCount(cfg, 1, 1); err != nil {
		return err
	}
	id, err := strconv.ParseInt(cfg.Args[0], 10, 64)
	if err != nil || id <= 0 {
		return settings.Usagef("%s ID takes the question's number as %s pending lists it, got %q", cfg.Command, settings.ProgName, cfg.Args[0])
	}
	if cfg.ReadOnly {
		return settings.Usagef("%s writes the decision into the database, which --read-only forbids", cfg.Command)
	}
	// Look first, read-only: a file without this question is not written.
	list, err := approvals(ctx, cfg)
	if err != nil {
		return err
	}
	found := false
	for _, a := range list {
		found = found || a.ID == id
	}
	if !found {
		return fmt.Errorf("question %d is not waiting for a decision (%s pending lists those that are): it does not exist, was decided already or expired", id, settings.ProgName)
	}
	store, err := sqlite.Open(ctx, cfg.DBPath, sqlite.Options{QueryTimeout: cfg.Limits.QueryTimeout, MaxCellChars: cfg.Limits.MaxCellChars})
	if err != nil {
		return err
	}
	defer store.Close()
	verdict, err := decide(ctx, store, id, approve, decider())
	if err != nil {
		if errors.Is(err, approval.ErrNotPending) {
			return fmt.Errorf("%w (%s pending lists the questions still waiting)", err, settings.ProgName)
		}
		return err
	}
	_, err = fmt.Fprintf(stdout, "question %d %s; the waiting call sees it within a second\n", id, verdict)
	return err
}

// decide stores the decision on question id and its query_log row (tool
// approve or deny), as the approve and deny commands and the web view's
// Approvals page do; by names who decided. It returns the verdict.
func decide(ctx context.Context, store *sqlite.Store, id int64, approve bool, by string) (string, error) {
	now := systemClock{}.Now()
	verdict, tool := "denied", "deny"
	if approve {
		verdict, tool = "approved", "approve"
	}
	query := tool + " " + strconv.FormatInt(id, 10)
	e := domain.AuditEntry{TS: domain.FormatTS(now), Session: newSession(now), Tool: tool, Query: &query, OK: true,
		Detail: domain.Detail{{Key: "approval_id", Value: id}, {Key: "decision", Value: verdict}, {Key: "by", Value: by}}.String()}
	return verdict, approval.New(store, systemClock{}).Decide(ctx, id, approve, by, now, e)
}

// decider names who decided: the CLI, the user running it and the process.
func decider() string {
	name := "unknown user"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	return fmt.Sprintf("cli (%s, pid %d)", name, os.Getpid())
}
