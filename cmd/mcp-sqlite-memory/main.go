// Command mcp-sqlite-memory serves one SQLite file over MCP (stdio, or
// Streamable HTTP with --http): SQL tools whose policy the server enforces,
// and an append-only, hash-chained memory log the agent cannot rewrite. Its
// subcommands (verify, resume, log, snapshots, call, restore, pending, approve, deny) work on the
// same file from a terminal. See README.md for flags and setup.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// goMemoryLimit is the Go runtime's soft memory limit (the process stays
// within docs/decisions.md#performance-budgets whatever the agent asks). Without it the heap
// goal doubles after every large transient value (a multi-megabyte cell or
// argument) and freed pages go back to the OS only slowly, so a few large
// calls in a row stack up. SQLite's own memory lives outside the Go heap
// and is bounded separately (SQLITE_LIMIT_LENGTH per value, and
// --max-sqlite-heap-bytes for the whole process, in adapters/sqlite).
const goMemoryLimit = 48 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" { // an explicit setting wins
		debug.SetMemoryLimit(goMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
