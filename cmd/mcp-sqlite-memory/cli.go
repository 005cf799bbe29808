package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"io"
	"log/slog"
	"os"
	"strings"
)

// command is one CLI subcommand of the binary.
type command struct {
	name, args, summary string
	// flags registers the subcommand's own flags.
	flags func(fs *flag.FlagSet, o *settings.CLIOptions)
	// run does the work; cfg is complete and validated.
	run func(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error
	// help is the text after the usage line.
	help string
	// noDB marks a subcommand that works on no --db (restore makes a new file).
	noDB bool
	// use says what a run, as cfg asks for it, does with the database:
	// whether it may change it, and which of the server's tables it needs
	// (cli_look.go). nil: it only reads and needs nothing. A reading run
	// never changes the file: lookFirst opens it read-only first, and on a
	// database without the server's tables the run stops with one line or
	// reads as with --read-only. A subcommand that writes must say so here.
	use func(cfg settings.Config) dbUse
}

// commands are the subcommands in the order --help lists them. It is filled
// in init because the run functions refer to the help texts.
var commands []*command

func init() {
	commands = []*command{verifyCommand, resumeCommand, logCommand, snapshotsCommand, callCommand, restoreCommand, undoCommand, pendingCommand, approveCommand, denyCommand, exportCommand, importCommand, uiCommand}
}

// commandOf splits off a leading subcommand name; nil means serve.
func commandOf(args []string) (*command, []string) {
	if len(args) > 0 {
		for _, c := range commands {
			if args[0] == c.name {
				return c, args[1:]
			}
		}
	}
	return nil, args
}

// subcommands are the subcommands as [settings.Parse] needs to know them:
// their names, their own flags, and which of them work on no database.
func subcommands() []settings.Subcommand {
	out := make([]settings.Subcommand, len(commands))
	for i, c := range commands {
		out[i] = settings.Subcommand{Name: c.name, Flags: c.flags, NoDB: c.noDB}
	}
	return out
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// runCommand runs the subcommand cfg names.
func runCommand(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd, _ := commandOf([]string{cfg.Command})
	if cmd == nil {
		return settings.Usagef("unknown subcommand %q: the subcommands are %s", cfg.Command, commandNames())
	}
	// A hook looks at the file itself: a missing file or one without
	// memory is an answer ("no memory yet"), not a failure (cli_hook.go).
	if !cmd.noDB && cfg.CLI.Hook == "" {
		var err error
		if cfg, err = lookFirst(ctx, cmd, cfg, stderr); err != nil {
			return err
		}
	}
	return cmd.run(ctx, cfg, stdin, stdout, stderr)
}

// commandUsage is a subcommand's --help text.
func commandUsage(name string) string {
	cmd, _ := commandOf([]string{name})
	if cmd == nil {
		return settings.Usage()
	}
	if cmd.noDB {
		return fmt.Sprintf("Usage: %s %s %s\n\n%s\n\n%s", settings.ProgName, cmd.name, cmd.args, cmd.summary, cmd.help) +
			"\nExit status: 0 done, 1 failed (the reason is on stderr), 2 bad command line.\n"
	}
	jsonLine := "  --json                    print one JSON document instead of plain text\n"
	if strings.Contains(cmd.help, "  --json ") {
		jsonLine = "" // the subcommand says what its document holds
	}
	return fmt.Sprintf("Usage: %s %s [--db PATH] %s\n\n%s\n%s", settings.ProgName, cmd.name, cmd.args, cmd.summary, cmd.help) + jsonLine +
		`  --db PATH                 the database (or MCP_SQLITE_DB); every server flag and
                            variable applies as well (see ` + settings.ProgName + ` --help)

It works while a server runs on the same file: reads never block the server,
and anything that writes waits for the server's write lock like a tool call.
On a database without the server's tables, reading changes nothing: a read
that needs memory says the file holds none, others read as with --read-only,
and only a write adds the server's tables, saying so first. Control
characters in plain text are shown escaped (\u001b); --json stays exact.
Exit status: 0 done, 1 failed (the reason is on stderr), 2 bad command line.
`
}

// cliLogger is the subcommands' logger: warnings only, unless -v.
func cliLogger(cfg settings.Config, stderr io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// exitStatus ends the program with a status and nothing more printed: the
// subcommand has already said everything on stdout.
type exitStatus int

// Error is never printed (see exitCode).
func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// needExisting refuses to work on a database that does not exist: a
// subcommand must never create a file because of a mistyped --db.
func needExisting(cfg settings.Config) error {
	info, err := os.Stat(cfg.DBPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return settings.Usagef("no database at %s: check --db (or %s); the subcommands never create one", cfg.DBPath, settings.EnvDB)
	case err != nil:
		return fmt.Errorf("cannot read --db %s: %w", cfg.DBPath, err)
	case info.IsDir():
		return settings.Usagef("--db %s is a folder: name the database file", cfg.DBPath)
	}
	return nil
}

// argCount checks the number of positional arguments.
func argCount(cfg settings.Config, min, max int) error {
	if n := len(cfg.Args); n < min || n > max {
		return settings.Usagef("%s %s takes %s, got %d argument(s) (see %s %s --help)", settings.ProgName, cfg.Command, commandArgs(cfg.Command), n, settings.ProgName, cfg.Command)
	}
	return nil
}

func commandArgs(name string) string {
	cmd, _ := commandOf([]string{name})
	if cmd == nil || cmd.args == "" {
		return "no arguments"
	}
	return cmd.args
}

// printJSON writes v as one indented JSON document.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
