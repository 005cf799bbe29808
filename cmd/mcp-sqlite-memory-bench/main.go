// Command mcp-sqlite-memory-bench runs every benchmark behind SPEC A7's
// budgets and prints one table: each figure, its baseline measured in the
// same run, the ratio and the budget, marking any figure over budget.
//
//	go run ./cmd/mcp-sqlite-memory-bench            # everything (a few minutes)
//	go run ./cmd/mcp-sqlite-memory-bench -short     # skip the 1M-row and 200 MB cases
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	results := map[string]result{}
	for _, job := range jobs(*short, *benchtime) {
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
	return printTable(stdout, figures(*short), results)
}
