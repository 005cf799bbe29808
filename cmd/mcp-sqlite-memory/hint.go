package main

import (
	"io"
	"os"
)

// isTerminal reports whether stdin is an interactive terminal (a character
// device), where nobody will speak MCP.
func isTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// terminalHint is the one note printed on stderr when the server is
// started by hand at a terminal: it waits for an MCP client on stdin.
func terminalHint(db string) string {
	return progName + ": serving MCP on stdin/stdout for " + db + ": this waits for an MCP client (a coding agent)\n" +
		"  to start it; press Ctrl+C to quit. To look at the database yourself, run\n" +
		"  " + progName + " verify|resume|log|snapshots|call --db PATH (each with --help).\n"
}
