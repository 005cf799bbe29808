package e2e

import "strings"

// Messages are the lines of a server's stderr that are not its INFO or
// DEBUG log records (slog's text lines, `time=... level=INFO msg=...`):
// the lines it writes for a person (a refusal, the terminal hint), and any
// WARN or ERROR record. How many informational records come first depends
// on the machine (without rg on PATH the server notes that search_text
// uses the in-process engine), so a test that promises "one line" counts
// these, not every line of stderr.
func Messages(stderr string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if line == "" || isInfoRecord(line) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// isInfoRecord reports whether line is a log record below WARN.
func isInfoRecord(line string) bool {
	if !strings.HasPrefix(line, "time=") {
		return false
	}
	return strings.Contains(line, " level=INFO ") || strings.Contains(line, " level=DEBUG ")
}
