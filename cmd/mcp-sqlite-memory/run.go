package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/jsonlog"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
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
// Nothing but JSON-RPC is ever written to stdout; logs go to stderr.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	if len(args) > 0 && args[0] == restoreCommand {
		return runRestore(ctx, args[1:], stdout, stderr)
	}
	cfg, err := parseConfig(args, os.Getenv)
	if err != nil {
		return err
	}
	if cfg.ShowHelp {
		_, err := io.WriteString(stderr, usageText())
		return err
	}
	if cfg.ShowVersion {
		_, err := fmt.Fprintf(stdout, "%s %s\n", mcpserver.Name, buildVersion())
		return err
	}
	level := slog.LevelInfo
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	clock := systemClock{}
	session := newSession(clock.Now())

	// SQLite's heap is process-wide; the soft limit makes page caches
	// recycle before the hard one fails a statement (ARCHITECTURE.md).
	if err := sqlite.LimitHeap(int64(cfg.Limits.MaxSQLiteHeapBytes), int64(cfg.Limits.MaxSQLiteHeapBytes/2)); err != nil {
		return err
	}
	store, err := sqlite.Open(ctx, cfg.DBPath, sqlite.Options{QueryTimeout: cfg.Limits.QueryTimeout, ReadOnly: cfg.ReadOnly, MaxCellChars: cfg.Limits.MaxCellChars,
		RepairServerObjects: cfg.RepairServerObjects, NoAutoCheckpoint: cfg.Replicate != ""})
	if err != nil {
		return err
	}
	stopReplication, err := startReplication(ctx, cfg, store.Path(), log)
	if err != nil {
		store.Close()
		return err
	}
	// Litestream stops last, after the server's own connections are closed
	// (deferred calls run in reverse): its last sync then holds every audit
	// row, and its closing the file cannot drop locks a live connection of
	// this process still relies on (POSIX locks belong to the process).
	defer stopReplication()
	defer store.Close()
	logRepaired(log, store)

	deps := app.Deps{Statements: store, Catalog: store, Memory: store, Audit: store, Clock: clock, Search: searcher(cfg.RGPath, log)}
	memory := true
	if cfg.ReadOnly {
		if memory, err = store.Available(ctx); err != nil {
			return err
		}
		deps.Audit = jsonlog.New(stderr)
		if cfg.AuditDB != "" {
			snapDirs := []string{snapshot.New(cfg.DBPath, snapshot.Options{Dir: cfg.SnapshotDir}).Dir(), snapshot.New(store.Path(), snapshot.Options{}).Dir()}
			auditPath, err := checkAuditPath(store.Path(), snapDirs, cfg.AuditDB)
			if err != nil {
				return err
			}
			audit, err := sqlite.Open(ctx, auditPath, sqlite.Options{RepairServerObjects: cfg.RepairServerObjects})
			if err != nil {
				return fmt.Errorf("open audit database: %w", err)
			}
			defer audit.Close()
			logRepaired(log, audit)
			deps.Audit = audit
		}
	} else {
		snaps := snapshot.New(cfg.DBPath, snapshot.Options{Dir: cfg.SnapshotDir, Keep: cfg.Limits.Snapshots, Clock: clock, Logger: log})
		if info, err := os.Stat(snaps.Dir()); cfg.Limits.Snapshots > 0 && err == nil && !info.IsDir() {
			// Not fatal: every other tool works; destructive_query and
			// snapshot fail closed, naming the setting, until it is fixed.
			log.Warn("the snapshot folder is a file, not a folder: destructive_query and snapshot will fail until "+
				"--snapshot-dir ("+envSnapshotDir+") names a folder or the file is moved away", "path", snaps.Dir())
		}
		deps.Snapshots = snaps
	}
	svc := app.New(deps, app.Options{Limits: cfg.Limits, Session: session, Logger: log})
	var sdkLog *slog.Logger // the SDK's session chatter only with -v
	if cfg.Verbose {
		sdkLog = log
	}
	server := mcpserver.New(svc, mcpserver.Options{Version: buildVersion(), Limits: cfg.Limits, ReadOnly: cfg.ReadOnly, Memory: memory, Logger: sdkLog, Log: log})

	log.Info("serving", "db", cfg.DBPath, "session", session, "read_only", cfg.ReadOnly, "search", deps.Search.Name(), "version", buildVersion())
	log.Debug("limits", "limits", cfg.Limits.String())
	return server.Serve(ctx, stdin, stdout)
}

// searcher picks ripgrep when it can be found, else the in-process engine;
// both give the same answers (test/contract proves it).
func searcher(rgPath string, log *slog.Logger) ports.TextSearcher {
	name := rgPath
	if name == "" {
		name = "rg"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		log.Info("ripgrep not found; search_text uses the in-process regexp2 engine", "rg", name)
		return regexp2.New()
	}
	return app.FallbackSearcher{Primary: ripgrep.New(path), Fallback: regexp2.New()}
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
	fmt.Fprintln(stderr, errLine(err))
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func errLine(err error) string {
	var ue *usageError
	if errors.As(err, &ue) {
		return err.Error()
	}
	return mcpserver.Name + ": " + err.Error()
}

// logRepaired says what --repair-server-objects rewrote or dropped.
func logRepaired(log *slog.Logger, store *sqlite.Store) {
	for _, obj := range store.Repaired() {
		log.Warn("repaired a server object that was not the server's own (--repair-server-objects): dropped it, then created the server's own objects", "object", obj)
	}
}
