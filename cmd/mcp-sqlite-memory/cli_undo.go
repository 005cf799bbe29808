package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/undo"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// overwriteLaterFlag is the flag that lets undo overwrite later changes.
const overwriteLaterFlag = "--overwrite-later"

var undoCommand = &command{
	name:    "undo",
	args:    "[CALL]",
	summary: "Undoes one destructive_query call, keeping the memory and the audit trail.",
	help: `CALL is the call's query_log id (as the log command shows it, #N or N); the
default is the latest destructive_query that took a snapshot and is not undone
yet (so undo after undo walks back one call at a time). From the snapshot
taken before that call, undo restores exactly the user objects the call changed
(what it dropped, altered, deleted or updated: definitions and rows, with their
indexes, triggers and AUTOINCREMENT counters), and leaves every other object,
memory_events and query_log as they are; it then appends a memory event and an
audit row saying what it restored. What the call changed is found by replaying
it on a private copy of its snapshot and comparing the objects.

It first prints what it will restore and which of those objects changed again
after the call (with the later calls that name them). It refuses to overwrite
such later changes unless --overwrite-later is given. On a terminal it asks
before writing; otherwise --yes is needed. A fresh snapshot is taken first (when
snapshots are on), then the restore runs as one transaction: a running server
waits for it like for any writer, then sees the restored objects, never a mix.
Refused with --read-only.

  --overwrite-later         restore even objects that changed after the call,
                            overwriting those later changes
  --yes                     do not ask (needed when stdin is no terminal)
  --json                    {"call", "snapshot", "restore": [...], "later": [...],
                            "later_calls": [...], "restored": BOOL,
                            "event_id", "fresh_snapshot"}
`,
	flags: func(fs *flag.FlagSet, o *settings.CLIOptions) {
		fs.BoolVar(&o.OverwriteLater, strings.TrimPrefix(overwriteLaterFlag, "--"), false, "")
		fs.BoolVar(&o.Yes, "yes", false, "")
	},
	run: runUndo,
	// undo writes, and needs the audit log (to find the call) and the memory
	// (it appends its event): on a database without them it changes nothing.
	use: func(settings.Config) dbUse {
		return dbUse{writes: true, needs: append(append([]string{}, memoryTables...), auditTables...)}
	},
}

// undoJSON is undo's --json document.
type undoJSON struct {
	Call       int64    `json:"call"`
	Snapshot   string   `json:"snapshot"`
	Restore    []string `json:"restore"`
	Later      []string `json:"later"`
	LaterCalls []string `json:"later_calls"`
	Restored   bool     `json:"restored"`
	EventID    *int64   `json:"event_id"`
	Fresh      *string  `json:"fresh_snapshot"`
}

// parseCallID reads CALL: a query_log id, with or without the log
// command's leading '#'.
func parseCallID(args []string) (int64, error) {
	if len(args) == 0 {
		return 0, nil
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(args[0], "#"), 10, 64)
	if err != nil || id < 1 {
		return 0, settings.Usagef("CALL must be a query_log id such as 42 or #42 (the log command shows them), not %q", args[0])
	}
	return id, nil
}

func runUndo(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 1); err != nil {
		return err
	}
	id, err := parseCallID(cfg.Args)
	if err != nil {
		return err
	}
	if cfg.ReadOnly {
		return settings.Usagef("undo writes the database, which --read-only forbids")
	}
	if err := needExisting(cfg); err != nil {
		return err
	}
	log := cliLogger(cfg, stderr)
	session := newSession(systemClock{}.Now())
	w, err := wire(ctx, cfg, log, stderr, session)
	if err != nil {
		return err
	}
	defer w.Close()
	undoer := undo.New(w.Store)
	defer undoer.Close()
	deps := app.UndoDeps{Undoer: undoer, Clock: systemClock{}, Session: session}
	if cfg.Limits.Snapshots > 0 {
		deps.Snapshots = newSnapshotter(cfg, log)
	}
	uc := app.NewUndo(deps)
	plan, err := uc.Plan(ctx, id)
	if err != nil {
		return err
	}
	out := undoReport(plan)
	if !cfg.CLI.JSON {
		if _, err := io.WriteString(stdout, plan.Describe()); err != nil {
			return err
		}
	}
	done := func(err error) error {
		if cfg.CLI.JSON {
			if perr := printJSON(stdout, out); perr != nil {
				return perr
			}
		}
		return err
	}
	if plan.Empty() {
		return done(nil)
	}
	if !cfg.CLI.OverwriteLater {
		if err := plan.RefuseLater(overwriteLaterFlag); err != nil {
			return done(err)
		}
	}
	if !cfg.CLI.Yes {
		if !isTerminal(stdin) {
			return done(errors.New("nothing was restored: stdin is no terminal, so undo cannot ask; run it again with --yes to restore"))
		}
		ok, err := confirm(stdin, stderr, "restore these objects? [y/N] ")
		if err != nil {
			return err
		}
		if !ok {
			return done(errors.New("nothing was restored: not confirmed"))
		}
	}
	res, err := uc.Apply(ctx, plan, cfg.CLI.OverwriteLater, overwriteLaterFlag)
	if err != nil {
		return done(err)
	}
	out.Restored, out.EventID = true, &res.Event.ID
	if res.Fresh != "" {
		out.Fresh = &res.Fresh
	}
	if cfg.CLI.JSON {
		return done(nil)
	}
	if res.Fresh != "" {
		if _, err := fmt.Fprintf(stdout, "saved the database as %s\n", res.Fresh); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(stdout, "restored %d object(s); recorded as memory event #%d and in query_log\n", len(plan.Restore), res.Event.ID)
	return err
}

// undoReport is the plan as --json prints it.
func undoReport(p domain.UndoPlan) undoJSON {
	out := undoJSON{Call: p.Call.ID, Snapshot: p.Call.Snapshot, Restore: []string{}, Later: []string{}, LaterCalls: []string{}}
	for _, d := range p.Restore {
		out.Restore = append(out.Restore, d.String())
	}
	for _, d := range p.Later {
		out.Later = append(out.Later, d.Type()+" "+d.Name)
	}
	for _, c := range p.LaterCalls {
		out.LaterCalls = append(out.LaterCalls, c.String())
	}
	return out
}

// confirm asks a yes/no question on the terminal; only y or yes is yes.
func confirm(stdin io.Reader, stderr io.Writer, question string) (bool, error) {
	if _, err := io.WriteString(stderr, question); err != nil {
		return false, err
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

var _ ports.Undoer = (*undo.Undoer)(nil)
