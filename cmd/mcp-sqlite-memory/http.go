package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/streamhttp"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/webui"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// shutdownGrace is how long calls in flight get, beyond the query
// timeout, to finish when the server is asked to stop.
const shutdownGrace = 2 * time.Second

// serveHTTP serves MCP over Streamable HTTP until ctx ends, then shuts
// down gracefully: it stops accepting, lets the calls in flight finish
// (for at most the query timeout plus shutdownGrace), cancels the rest and
// closes every session.
//
// The web view is mounted beside /mcp at /ui/ by webView (nil: none),
// given the names the server answers to; the MCP handler never sees those
// requests.
func serveHTTP(ctx context.Context, server *mcpserver.Server, cfg settings.Config, log *slog.Logger, webView func(hosts []string) http.Handler) error {
	c := cfg.HTTP
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", c.Addr, err)
	}
	hosts := append([]string{}, c.AllowedHosts...)
	if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			hosts = append(hosts, host) // the bound address names this server
		}
	}
	h := streamhttp.New(server, streamhttp.Options{Token: c.Token, OAuth: c.OAuth, Hosts: hosts, MaxSessions: c.MaxSessions, IdleTimeout: c.SessionIdle})
	var handler http.Handler = h
	if webView != nil {
		mux := http.NewServeMux()
		mux.Handle("/", h)
		mux.Handle(webui.Prefix, webView(hosts))
		handler = mux
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("serving over HTTP", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String()+"/mcp", "auth", c.Token != "", "oauth", c.OAuth != nil, "max_sessions", c.MaxSessions)

	select {
	case err := <-served:
		return fmt.Errorf("--http %s: %w", c.Addr, err)
	case <-ctx.Done():
	}
	log.Info("shutting down: no new requests; waiting for calls in flight")
	bound := cfg.Limits.QueryTimeout + shutdownGrace
	shut := make(chan error, 1)
	sctx, cancel := context.WithTimeout(context.Background(), bound+2*shutdownGrace)
	defer cancel()
	go func() { shut <- srv.Shutdown(sctx) }() // closes the listener now
	dctx, dcancel := context.WithTimeout(context.Background(), bound)
	if err := h.Drain(dctx); err != nil {
		log.Warn("calls still in flight at the shutdown bound are cancelled", "bound", domain.FormatSeconds(bound)+"s")
	}
	dcancel()
	server.Shutdown() // cancels what is left
	h.CloseSessions() // ends the event streams Shutdown would wait for
	// Every answer is out; what is left are idle connections, and
	// connections that never sent a request, which Shutdown would wait 5 s
	// for.
	select {
	case <-shut:
	case <-time.After(time.Second):
		_ = srv.Close()
	}
	return nil
}
