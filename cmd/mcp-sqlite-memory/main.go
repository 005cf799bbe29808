// Command mcp-sqlite-memory serves one SQLite file over MCP stdio: SQL tools
// whose policy the server enforces, and an append-only, hash-chained memory
// log the agent cannot rewrite. See README.md for flags and setup.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
