package main

// parseConfig is [parseConfigNotes] without the notes, as most tests want
// it.
func parseConfig(args []string, getenv func(string) string) (Config, error) {
	cfg, _, err := parseConfigNotes(args, getenv)
	return cfg, err
}
