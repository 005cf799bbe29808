// Command mcp-sqlite-memory-replicate is the replication sidecar of
// mcp-sqlite-memory: it streams one database to a Litestream replica, and
// restores a replica into a new file. The server starts it as a child
// process when run with --replicate, and runs it for its restore
// subcommand; it is the only executable that links Litestream, so the
// server's own start pays nothing for replication (README "Sharing and
// surviving").
//
//	mcp-sqlite-memory-replicate run --db PATH [--sync-interval D] [-v]
//	mcp-sqlite-memory-replicate restore --to PATH [--at TIME] [-v]
//
// The replica URL is read from MCP_SQLITE_REPLICATE (or --url): the
// environment, unlike the command line, is not shown to other users of the
// machine, and a URL may carry a secret. Log lines go to stderr; stdout
// carries one JSON object per line for the process that started it
// (see [control]). run replicates until its stdin ends or it receives
// SIGTERM, then syncs once more and exits; it ignores SIGINT, which a
// terminal sends the server too, so that the server's last writes are
// synced before it stops.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
