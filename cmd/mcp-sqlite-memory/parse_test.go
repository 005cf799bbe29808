package main

import "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"

// envOf returns a getenv that sees only vars; HOME is pinned so that ~
// expansion never depends on the machine running the tests.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		if k == "HOME" {
			return "/home/tester"
		}
		return ""
	}
}

// parseConfig is [settings.Parse] over this binary's subcommands, without
// the notes, as most tests want it.
func parseConfig(args []string, getenv func(string) string) (settings.Config, error) {
	cfg, _, err := settings.Parse(args, getenv, subcommands())
	return cfg, err
}
