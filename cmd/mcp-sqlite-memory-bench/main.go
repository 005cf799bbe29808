// Command mcp-sqlite-memory-bench runs every benchmark behind the
// budgets of docs/decisions.md#performance-budgets and prints one table: each figure, its baseline measured in the
// same run, the ratio and the budget, marking any figure over budget.
//
//	go run ./cmd/mcp-sqlite-memory-bench            # everything (a few minutes)
//	go run ./cmd/mcp-sqlite-memory-bench -short     # skip the 1M-row and 200 MB cases
//	go run ./cmd/mcp-sqlite-memory-bench -stdio-only  # only the side-by-side stdio (and HTTP) figures
//	go run ./cmd/mcp-sqlite-memory-bench -http-only   # only the side-by-side Streamable HTTP figures
//
// The stdio figures build this server and a do-nothing server on the same
// SDK (./noop), generate a shop database (10k customers, 100k orders, 300k
// items) in a temporary folder, and drive both with the SDK's client,
// interleaved with a persistent sqlite3 CLI process and any npm peers named
// in MCP_SQLITE_BENCH_PEERS or found on PATH; then over Streamable HTTP,
// in both protocol eras, with any peers named in MCP_SQLITE_BENCH_HTTP_PEERS.
//
// The benchmarks themselves are ordinary `go test -bench` functions (in
// test/bench, test/searchbench, domain and adapters/snapshot); this command
// only runs them and does the arithmetic, so every number can be reproduced
// with go test alone.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-sqlite-memory-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-sqlite-memory-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	short := fs.Bool("short", false, "skip the slow cases (1M-event chain, 1M-line search, 200 MB snapshot)")
	benchtime := fs.String("benchtime", "1s", "go test -benchtime for the fast benchmarks")
	verbose := fs.Bool("v", false, "echo go test's output")
	stdio := fs.Bool("stdio", true, "also drive the built binary over stdio, side by side with a do-nothing SDK server, the sqlite3 CLI and any npm peers ("+peersEnv+")")
	stdioOnly := fs.Bool("stdio-only", false, "run only the side-by-side stdio figures (and the HTTP ones)")
	httpOnly := fs.Bool("http-only", false, "run only the side-by-side Streamable HTTP figures, in both protocol eras, with any HTTP peers ("+httpPeersEnv+")")
	memoryOnly := fs.Bool("memory-only", false, "run only the memory rows: this server's append_event and get_resume_context against the official memory server ("+memoryPeerEnv+") at 1k, 10k and 100k stored items (10k at most with -short)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *httpOnly {
		*stdioOnly = true
	}
	if *memoryOnly {
		dir, err := os.MkdirTemp("", "mcp-sqlite-memory-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		sizes := []int{1_000, 10_000, 100_000}
		if *short {
			sizes = sizes[:2]
		}
		return memoryRows(ctx, dir, sizes, 21, stdout, stderr)
	}
	results := map[string]result{}
	var figs []figure
	if !*stdioOnly {
		figs = figures(*short)
	} else {
		*stdio = true
	}
	for _, job := range jobs(*short, *benchtime) {
		if *stdioOnly {
			break
		}
		fmt.Fprintf(stderr, "running %s %s ...\n", job.pkg, job.pattern)
		out, err := goTestBench(ctx, job)
		if *verbose {
			stderr.Write(out)
		}
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", job.pkg, err, out)
		}
		for k, v := range parse(out) {
			results[k] = v
		}
	}
	if *stdio {
		res, f, err := sideBySide(ctx, stdioSizes(*short), *httpOnly, stderr)
		if err != nil {
			return err
		}
		for k, v := range res {
			results[k] = v
		}
		figs = append(figs, f...)
	}
	return printTable(stdout, figs, results)
}
