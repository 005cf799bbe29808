package main

import (
	"io"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// safeWriter is a writer for a person's terminal: every Write passes
// through [domain.TerminalSafe], so stored or agent-written text (queries,
// events, cells, error text, file names) cannot drive the terminal it is
// printed on. run wraps stderr with it in every mode, and stdout for the
// subcommands (never the server's stdout, which carries JSON-RPC).
//
// Each Write must hold whole characters: every writer here writes whole
// strings (fmt, io.WriteString, encoding/json's Encoder, slog's handlers,
// which write one record at a time), never a stream cut at arbitrary
// bytes. Since TerminalSafe keeps a JSON document's values exact, --json
// output passes through it too.
type safeWriter struct{ w io.Writer }

// terminalWriter wraps w once.
func terminalWriter(w io.Writer) io.Writer {
	if _, ok := w.(safeWriter); ok {
		return w
	}
	return safeWriter{w}
}

// Write writes p made terminal-safe; it reports len(p) on success, as the
// caller's bytes were all written (in their escaped form).
func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, domain.TerminalSafe(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
