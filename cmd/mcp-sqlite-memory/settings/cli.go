package settings

import (
	"flag"
	"strings"
)

// CLIOptions are the subcommands' own flags; each subcommand registers only
// the ones it reads.
type CLIOptions struct {
	JSON         bool   // every subcommand: --json
	Failures     bool   // log: --failures
	Tool         string // log: --tool
	Limit        int    // log: --limit
	Since        string // log: --since
	MaxEvents    int    // resume: --max-events (0: the tool's default)
	ExcludeKinds string // resume: --exclude-kinds
	MaxBytes     int    // resume: --max-bytes (0: the tool's default)
	Hook         string // resume: --hook (session-start, pre-compact)
	To           string // snapshots restore, restore: --to
	Over         bool   // snapshots restore: --over
	From         string // restore: --from
	At           string // restore: --at
	// OverwriteLater and Yes are undo's --overwrite-later and --yes.
	OverwriteLater, Yes bool
	// Addr is ui's --addr.
	Addr string

	// Looking is set by the command's lookFirst (not by parsing) for a
	// reading run on a database without the server's tables: read-only,
	// its calls logged nowhere.
	Looking bool
}

// Subcommand is what parsing needs to know of one of the command's
// subcommands; the subcommands themselves live in package main.
type Subcommand struct {
	// Name is the word that selects it (verify, log, ...).
	Name string
	// Flags registers the subcommand's own flags; nil for none.
	Flags func(fs *flag.FlagSet, o *CLIOptions)
	// NoDB marks a subcommand that works on no --db (restore makes a new file).
	NoDB bool
}

// subcommandOf splits off a leading subcommand name; nil means serve.
func subcommandOf(cmds []Subcommand, args []string) (*Subcommand, []string) {
	if len(args) > 0 {
		for i := range cmds {
			if args[0] == cmds[i].Name {
				return &cmds[i], args[1:]
			}
		}
	}
	return nil, args
}

// subcommandNames lists the subcommands for a message.
func subcommandNames(cmds []Subcommand) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// parseCommandLine parses args with fs. For a subcommand it registers the
// subcommand's flags too and lets flags and arguments mix
// (`snapshots restore NAME --to PATH`); a lone "--" ends the flags. It
// returns the positional arguments.
func parseCommandLine(fs *flag.FlagSet, cmd *Subcommand, cfg *Config, args []string, names *flagNames) ([]string, error) {
	see := "see --help"
	if cmd != nil {
		see = "see " + ProgName + " " + cmd.Name + " --help"
		cfg.Command = cmd.Name
		fs.BoolVar(&cfg.CLI.JSON, "json", false, "")
		if cmd.Flags != nil {
			cmd.Flags(fs, &cfg.CLI)
		}
	}
	typed, err := scanFlags(fs, args, cmd != nil, see)
	if err != nil {
		return nil, err
	}
	names.typed = typed
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			// flag's own messages are one line and name the flag.
			return nil, Usagef("%v (%s)", err, see)
		}
		consumed := len(args) - len(fs.Args())
		ended := consumed > 0 && args[consumed-1] == "--" // flag drops the "--" that ends the flags
		args = fs.Args()
		if len(args) == 0 || cmd == nil || ended {
			rest = append(rest, args...)
			break
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
	cfg.Args = rest
	return rest, nil
}
