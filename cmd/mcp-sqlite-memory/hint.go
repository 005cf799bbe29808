package main

import (
	"io"
	"os"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
)

// isTerminal reports whether stdin is an interactive terminal, where nobody
// will speak MCP. A character device alone is not enough: /dev/null is one.
func isTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	return ok && isTerminalFd(f.Fd())
}

// terminalHint is the one note printed on stderr when the server is
// started by hand at a terminal: it waits for an MCP client on stdin.
func terminalHint() string {
	return settings.ProgName + ": serving MCP on stdin/stdout: this waits for an MCP client (a coding agent) to start it;\n" +
		"  press Ctrl+C to quit. To look at the database yourself, run\n" +
		"  " + settings.ProgName + " verify|resume|log|snapshots|call --db PATH (each with --help).\n"
}
