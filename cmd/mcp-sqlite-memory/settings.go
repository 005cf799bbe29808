package main

import "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"

// The settings live in package settings; these names let the command's
// files keep speaking of them as they always have.
type (
	// Config is everything the command line and environment decide.
	Config = settings.Config
	// cliOptions are the subcommands' own flags.
	cliOptions = settings.CLIOptions
	// usageError is a bad command line: one line on stderr, exit status 2.
	usageError = settings.UsageError
)

// progName prefixes every line the command prints about its own setup.
const progName = settings.ProgName

// usagef is [settings.Usagef].
func usagef(format string, args ...any) *usageError { return settings.Usagef(format, args...) }

// shownPath is [settings.ShownPath]: a path as the serving line shows it.
func shownPath(p string) string { return settings.ShownPath(p) }

// subcommands are the subcommands as parsing needs to know them.
func subcommands() []settings.Subcommand {
	out := make([]settings.Subcommand, len(commands))
	for i, c := range commands {
		out[i] = settings.Subcommand{Name: c.name, Flags: c.flags, NoDB: c.noDB}
	}
	return out
}

// parseConfigNotes is [settings.Parse] over this binary's subcommands.
func parseConfigNotes(args []string, getenv func(string) string) (Config, settings.Notes, error) {
	return settings.Parse(args, getenv, subcommands())
}
