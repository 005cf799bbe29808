package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

// systemClock is the real clock.
type systemClock struct{}

// Now returns the current time.
func (systemClock) Now() time.Time { return time.Now() }

// run is the whole program: parse settings, wire the adapters to the core
// and serve MCP on stdin/stdout until the client goes away or ctx ends.
// Nothing but JSON-RPC is ever written to stdout; logs go to stderr. A
// leading subcommand (verify, resume, log, snapshots, call, restore, pending, approve, deny) runs that
// instead, printing for a person or a script on stdout.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	stderr = terminalWriter(stderr) // logs and errors quote agent text
	cfg, notes, err := settings.Parse(args, os.Getenv, subcommands())
	// The bearer token is read once, just above: it leaves the environment
	// before anything starts. Children never had it anyway: each gets only
	// an allow-list of variables (domain.ChildEnv).
	_ = os.Unsetenv(settings.EnvAuthToken)
	if err != nil {
		return err
	}
	if cfg.ShowHelp && cfg.Command == callCommand.name && len(cfg.Args) > 0 {
		text, err := toolUsage(cfg.Args[0])
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, text)
		return err
	}
	if cfg.ShowHelp && cfg.Command != "" {
		_, err := io.WriteString(stdout, commandUsage(cfg.Command))
		return err
	}
	if cfg.ShowHelp {
		_, err := io.WriteString(stderr, settings.Usage())
		return err
	}
	if cfg.ShowVersion {
		_, err := fmt.Fprintf(stdout, "%s %s\n", mcpserver.Name, buildVersion())
		return err
	}
	for _, w := range notes.Warnings {
		_, _ = fmt.Fprintln(stderr, settings.ProgName+": "+w)
	}
	if cfg.Command != "" {
		return runCommand(ctx, cfg, stdin, terminalWriter(stdout), stderr)
	}
	var sidecar string
	if cfg.Replicate != "" {
		if sidecar, err = findSidecar(os.Getenv, cfg.ReplicateFrom); err != nil {
			return err
		}
	}
	log := newLogger(cfg, stderr)
	session := newSession(systemClock{}.Now())
	if cfg.HTTP.Addr == "" && !cfg.ReadOnly {
		if isTerminal(stdin) {
			_, _ = io.WriteString(stderr, terminalHint())
		}
		return serveWhileOpening(ctx, cfg, notes.DBFlag, sidecar, session, log, stdin, stdout, stderr)
	}
	w, err := wire(ctx, cfg, log, stderr, session)
	if err != nil {
		return explainOpen(cfg, notes.DBFlag, err)
	}
	stopReplication, err := startReplication(cfg, sidecar, w.Store.Path(), stderr)
	if err != nil {
		w.Close()
		return err
	}
	// Litestream stops last, after the server's own connections are closed
	// (deferred calls run in reverse): its last sync then holds every audit
	// row, and its closing the file cannot drop locks a live connection of
	// this process still relies on (POSIX locks belong to the process).
	defer stopReplication()
	defer w.Close()
	if cfg.HTTP.Addr == "" && isTerminal(stdin) {
		_, _ = io.WriteString(stderr, terminalHint())
	}
	log.Info("serving", "db", settings.ShownPath(cfg.DBPath), "session", session, "read_only", cfg.ReadOnly, "search", w.Deps.Search.Name(), "version", buildVersion())
	log.Debug("limits", "limits", cfg.Limits.String())
	if cfg.HTTP.Addr != "" {
		defer warmChain(ctx, w)() // before w.Close
		return serveHTTP(ctx, w.Server, cfg, log, func(hosts []string) http.Handler {
			return httpWebView(cfg, w, log, session, hosts, stderr)
		})
	}
	return w.Server.Serve(ctx, stdin, stdout)
}

func newSession(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return domain.NewSessionID(now, b)
}

// exitCode maps run's error to the process status, printing one line.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var status exitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	fmt.Fprintln(terminalWriter(stderr), errLine(err))
	var ue *settings.UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func errLine(err error) string {
	var ue *settings.UsageError
	if errors.As(err, &ue) {
		return err.Error()
	}
	return mcpserver.Name + ": " + err.Error()
}
