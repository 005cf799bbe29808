package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	wiring "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
)

// openDelay is how long the database's open waits for the handshake (which
// takes a few milliseconds) before it starts anyway; the first tool call
// starts it at once.
const openDelay = 25 * time.Millisecond

// serveWhileOpening is the writable stdio server (docs/decisions.md#start-up): it answers the handshake at once and opens the database
// meanwhile, since initialize and tools/list depend only on the settings.
// Tool calls wait for the open (app.Pending). If the open, or the start
// of replication, fails, run returns the same error as when it opened
// first, whether or not the client is still connected: nothing but the
// SDK's JSON-RPC answers is ever written to stdout. A read-only server
// opens first (its tool list depends on the database: the memory tools are
// offered only when it has them), and so does HTTP mode.
func serveWhileOpening(ctx context.Context, cfg settings.Config, dbFlag, sidecar, session string, log *slog.Logger,
	stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	if err := limitHeap(cfg); err != nil {
		return err
	}
	w := wiring.New(wireOptions(cfg, log, stderr, session))
	pending := app.NewPending(cfg.Limits.QueryTimeout)
	w.Server = w.NewServer(pending, true)

	sctx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	served := make(chan error, 1)
	go func() { served <- w.Server.Serve(sctx, stdin, stdout) }()

	// The open waits until the handshake is likely answered, so the two do
	// not compete for the CPU, unless a tool call (or the client's leaving)
	// needs it sooner.
	ended := false
	var serveErr error
	select {
	case <-pending.Wanted():
	case <-time.After(openDelay):
	case serveErr = <-served:
		ended = true
	case <-ctx.Done():
	}
	if err := w.OpenCore(ctx); err != nil {
		w.Close()
		pending.Set(nil, err)
		if ctx.Err() != nil {
			// Stopped (SIGTERM, Ctrl-C) while opening: the handshake may
			// already be answered, and a stop asked for is no failure.
			return nil
		}
		return explainOpen(cfg, dbFlag, err)
	}
	stopReplication, err := startReplication(cfg, sidecar, w.Store.Path(), stderr)
	if err != nil {
		w.Close()
		pending.Set(nil, err)
		return err
	}
	// As in run: replication stops after the store's connections close.
	defer stopReplication()
	defer w.Close()
	pending.Set(w.Service, nil)
	log.Info("serving", "db", settings.ShownPath(cfg.DBPath), "session", session, "read_only", cfg.ReadOnly, "search", w.Deps.Search.Name(), "version", buildVersion())
	log.Debug("limits", "limits", cfg.Limits.String())
	if !ended {
		serveErr = <-served
	}
	pending.Drain() // the calls that waited for the open end before the store closes
	return serveErr
}
