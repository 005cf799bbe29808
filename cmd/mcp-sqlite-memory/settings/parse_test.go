package settings

import "flag"

// testSubcommands stand in for the binary's subcommands (package main):
// log with one flag of its own, and restore, which needs no --db.
var testSubcommands = []Subcommand{
	{Name: "verify"},
	{Name: "log", Flags: func(fs *flag.FlagSet, o *CLIOptions) { fs.IntVar(&o.Limit, "limit", 20, "") }},
	{Name: "restore", NoDB: true},
}

// parseConfigNotes is [Parse] over testSubcommands.
func parseConfigNotes(args []string, getenv func(string) string) (Config, Notes, error) {
	return Parse(args, getenv, testSubcommands)
}

// parseConfig is [parseConfigNotes] without the notes, as most tests want
// it.
func parseConfig(args []string, getenv func(string) string) (Config, error) {
	cfg, _, err := parseConfigNotes(args, getenv)
	return cfg, err
}
