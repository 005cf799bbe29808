package main

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

// parseConfig is [parseConfigNotes] without the notes, as most tests want
// it.
func parseConfig(args []string, getenv func(string) string) (Config, error) {
	cfg, _, err := parseConfigNotes(args, getenv)
	return cfg, err
}
