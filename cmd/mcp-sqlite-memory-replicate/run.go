package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/litestream"
)

// progName names this executable in messages.
const progName = "mcp-sqlite-memory-replicate"

// envURL holds the replica URL, as for the server's --replicate.
const envURL = "MCP_SQLITE_REPLICATE"

// control is one line on stdout for the process that started the sidecar:
// Ready once replication is set up (run), Done once the file is restored
// (restore), or Error with the one-line reason it stopped; Usage marks an
// error in what it was given (a URL Litestream refuses), which the server
// reports as an invalid setting.
type control struct {
	Ready bool   `json:"ready,omitempty"`
	Done  bool   `json:"done,omitempty"`
	Error string `json:"error,omitempty"`
	Usage bool   `json:"usage,omitempty"`
}

// run is the whole program; it returns the exit status: 0, 1 for a failure,
// 2 for a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "run" && args[0] != "restore") {
		fmt.Fprintf(stderr, "usage: %s run --db PATH [--sync-interval D] [-v]\n       %s restore --to PATH [--at TIME] [-v]\n"+
			"(the replica URL in %s or --url; normally started by mcp-sqlite-memory --replicate)\n", progName, progName, envURL)
		return 2
	}
	fs := flag.NewFlagSet(progName+" "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", os.Getenv(envURL), "replica URL (default $"+envURL+")")
	db := fs.String("db", "", "run: the database to replicate")
	sync := fs.Duration("sync-interval", litestream.DefaultSyncInterval, "run: time between syncs")
	to := fs.String("to", "", "restore: the new database file")
	at := fs.String("at", "", "restore: RFC 3339 time of the state to restore")
	verbose := fs.Bool("v", false, "Litestream's own informational lines")
	quiet := fs.Bool("control", false, "report errors only on the control line (the server prints them)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	say := func(c control) { _ = json.NewEncoder(stdout).Encode(c) }
	fail := func(err error, usage bool) int {
		say(control{Error: err.Error(), Usage: usage})
		if !*quiet {
			fmt.Fprintf(stderr, "%s: %v\n", progName, err)
		}
		if usage {
			return 2
		}
		return 1
	}
	level := slog.LevelInfo // the server's own log level
	if args[0] == "restore" {
		level = slog.LevelWarn // as the server's subcommands log
	}
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *url == "" {
		return fail(fmt.Errorf("no replica URL: set %s or --url", envURL), true)
	}
	if err := litestream.CheckURL(*url); err != nil {
		return fail(err, true)
	}
	if args[0] == "restore" {
		return restore(ctx, *url, *to, *at, log, say, fail)
	}
	if *db == "" {
		return fail(errors.New("run needs --db PATH"), true)
	}
	rep, err := litestream.New(*db, litestream.Options{URL: *url, SyncInterval: *sync, Logger: log, Verbose: *verbose})
	if err != nil {
		return fail(err, false)
	}
	ctx, stop := stopContext(ctx, stdin)
	defer stop()
	say(control{Ready: true})
	if err := rep.Run(ctx); err != nil {
		return 1 // logged by Run
	}
	return 0
}

// stopContext ends when stdin ends (the server exited, or closed it to stop
// replication) or on SIGTERM. SIGINT is ignored: a terminal's Ctrl-C reaches
// the server too, which then stops this process after its last write.
func stopContext(parent context.Context, stdin io.Reader) (context.Context, func()) {
	signal.Ignore(os.Interrupt)
	ctx, stop := signal.NotifyContext(parent, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	return ctx, func() { cancel(); stop() }
}

// restore writes the replica's state into the new file to; the caller
// verifies it.
func restore(ctx context.Context, url, to, at string, log *slog.Logger, say func(control), fail func(error, bool) int) int {
	if to == "" {
		return fail(errors.New("restore needs --to PATH"), true)
	}
	var when time.Time
	if at != "" {
		var err error
		if when, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(at)); err != nil {
			return fail(fmt.Errorf("invalid --at %q: want an RFC 3339 time such as 2026-12-01T15:04:05Z", at), true)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := litestream.Restore(ctx, url, to, when, log); err != nil {
		return fail(err, false)
	}
	say(control{Done: true})
	return 0
}
