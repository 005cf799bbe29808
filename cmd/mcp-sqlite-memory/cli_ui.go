package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/streamhttp"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/webui"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
)

var uiCommand = &command{
	name:    "ui",
	summary: "Serves a web view of the memory, the audit log, the snapshots and the tables on 127.0.0.1.",
	help: `It prints one URL on stderr, with a one-time login secret in it: open it in a
browser (nothing is opened for you); the secret is spent by the first login.
The pages read through the read tier as read_query does (the user's tables
through read_query itself, audited); undo asks for the same confirmation as
the undo command and runs the same way. With --read-only the file is opened
read-only and every action is refused. Ctrl-C stops it.
A server started with --http serves the same view under /ui/, where its
bearer token logs in.

  --addr HOST:PORT          where to listen (default 127.0.0.1 on a free port);
                            a loopback address only (use --http with a token
                            to reach the view from elsewhere)
`,
	flags: func(fs *flag.FlagSet, o *settings.CLIOptions) {
		fs.StringVar(&o.Addr, "addr", "127.0.0.1:0", "")
	},
	// The view reads (use nil): on a file without the server's tables it is
	// read-only and adds nothing; on the server's own database undo,
	// approve and deny write, as their commands do.
	run: runUI,
}

func runUI(ctx context.Context, cfg settings.Config, _ io.Reader, _, stderr io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	if !streamhttp.IsLoopbackAddr(cfg.CLI.Addr) {
		return settings.Usagef("--addr %s is not a loopback address: the ui command serves this machine only; to reach the view from elsewhere start the server with --http and a token (--auth-token-file) and open /ui/", cfg.CLI.Addr)
	}
	if err := needExisting(cfg); err != nil {
		return err
	}
	log := cliLogger(cfg, stderr)
	session := newSession(systemClock{}.Now())
	w, err := wire(ctx, cfg, log, stderr, session)
	if err != nil {
		return err
	}
	defer w.Close()
	defer warmChain(ctx, w)() // before w.Close
	ln, err := net.Listen("tcp", cfg.CLI.Addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", cfg.CLI.Addr, err)
	}
	secret := webui.NewSecret()
	h := webui.New(webDeps(cfg, w, log, session), webui.Options{Secret: secret, Hosts: []string{ln.Addr().String()}, Logger: log})
	mux := http.NewServeMux()
	mux.Handle(webui.Prefix, h)
	mux.Handle("/{$}", http.RedirectHandler(webui.Prefix, http.StatusSeeOther))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	mode := ""
	if cfg.ReadOnly {
		mode = " (read-only)"
	}
	if _, err := fmt.Fprintf(stderr, "%s: web view%s of %s at\n    http://%s%slogin?secret=%s\n(the secret works once; Ctrl-C stops the view)\n",
		settings.ProgName, mode, filepath.Base(cfg.DBPath), ln.Addr(), webui.Prefix, secret); err != nil {
		return err
	}
	select {
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("--addr %s: %w", cfg.CLI.Addr, err)
		}
		return nil
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.Limits.QueryTimeout+shutdownGrace)
	defer cancel()
	_ = srv.Shutdown(sctx)
	return nil
}
