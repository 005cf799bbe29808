package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/jsonlog"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// wiring is the adapters connected to the core for one database: what the
// server serves, and what every CLI subcommand runs against. Close releases
// it all.
type wiring struct {
	cfg     Config
	log     *slog.Logger
	session string
	store   *sqlite.Store
	// auditStore is the SQLite file holding query_log: store, or the
	// --audit-db file in read-only mode; nil when audit lines go to stderr.
	auditStore *sqlite.Store
	deps       app.Deps
	svc        *app.Service
	server     *mcpserver.Server
	// baseLog is the stderr logger; log adds the clients' (clientLog).
	baseLog   *slog.Logger
	clientLog *mcpserver.ClientLog
	closers   []func() error
}

// Close closes the stores, last opened first.
func (w *wiring) Close() {
	for i := len(w.closers) - 1; i >= 0; i-- {
		_ = w.closers[i]()
	}
}

// newLogger is the stderr logger every mode uses.
func newLogger(cfg Config, stderr io.Writer) *slog.Logger {
	level := slog.LevelInfo
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// wire opens the database and connects every adapter to the core exactly as
// the server runs it; session names this process in events and audit rows.
// In read-only mode the audit log goes to --audit-db, or as JSON lines to
// stderr.
func wire(ctx context.Context, cfg Config, log *slog.Logger, stderr io.Writer, session string) (_ *wiring, err error) {
	w := newWiring(cfg, log, session)
	memory, err := w.open(ctx, stderr)
	if err != nil {
		w.Close() // what was opened before the failure
		return nil, err
	}
	w.server = w.newServer(w.svc, memory)
	return w, nil
}

// newWiring prepares the logs: what the core and the snapshotter log also
// goes to the MCP clients that asked for log messages (logging/setLevel).
// The transport's and the SDK's own records do not: sending one record
// would log another.
func newWiring(cfg Config, log *slog.Logger, session string) *wiring {
	clientLog := mcpserver.NewClientLog()
	return &wiring{cfg: cfg, log: slog.New(slog.NewMultiHandler(log.Handler(), clientLog)), baseLog: log, clientLog: clientLog, session: session}
}

// newServer is the MCP server of tools; memory offers the memory tools in
// read-only mode. Its tool list depends only on the settings and memory.
func (w *wiring) newServer(tools ports.Tools, memory bool) *mcpserver.Server {
	sdkLog := w.baseLog
	if !w.cfg.Verbose {
		sdkLog = nil // the SDK's session chatter only with -v
	}
	return mcpserver.New(tools, mcpserver.Options{Version: buildVersion(), Limits: w.cfg.Limits, ReadOnly: w.cfg.ReadOnly, Memory: memory, Logger: sdkLog, Log: w.baseLog,
		ClientLog: w.clientLog, Structured: w.cfg.Structured})
}

// open opens the database (and --audit-db) and builds the core, w.svc;
// memory reports whether a read-only database holds the memory tables. On
// an error the caller closes w.
func (w *wiring) open(ctx context.Context, stderr io.Writer) (memory bool, err error) {
	cfg, log := w.cfg, w.log
	clock := systemClock{}
	// SQLite's heap is process-wide; the soft limit makes page caches
	// recycle before the hard one fails a statement (ARCHITECTURE.md).
	if err := sqlite.LimitHeap(int64(cfg.Limits.MaxSQLiteHeapBytes), int64(cfg.Limits.MaxSQLiteHeapBytes/2)); err != nil {
		return false, err
	}
	store, err := sqlite.Open(ctx, cfg.DBPath, sqlite.Options{QueryTimeout: cfg.Limits.QueryTimeout, ReadOnly: cfg.ReadOnly, MaxCellChars: cfg.Limits.MaxCellChars,
		RepairServerObjects: cfg.RepairServerObjects, NoAutoCheckpoint: cfg.Replicate != ""})
	if err != nil {
		return false, err
	}
	w.store, w.auditStore = store, store
	w.closers = append(w.closers, store.Close)
	logRepaired(log, store)

	deps := app.Deps{Statements: store, Catalog: store, Memory: store, Audit: store, Clock: clock, Search: searcher(cfg.RGPath, log)}
	memory = true
	if cfg.ReadOnly {
		if memory, err = store.Available(ctx); err != nil {
			return false, err
		}
		deps.Audit, w.auditStore = jsonlog.New(stderr), nil
		if cfg.AuditDB != "" {
			snapDirs := []string{snapshot.New(cfg.DBPath, snapshot.Options{Dir: cfg.SnapshotDir}).Dir(), snapshot.New(store.Path(), snapshot.Options{}).Dir()}
			auditPath, err := checkAuditPath(store.Path(), snapDirs, cfg.AuditDB)
			if err != nil {
				return false, err
			}
			audit, err := sqlite.Open(ctx, auditPath, sqlite.Options{RepairServerObjects: cfg.RepairServerObjects})
			if err != nil {
				return false, fmt.Errorf("open audit database: %w", err)
			}
			w.closers = append(w.closers, audit.Close)
			logRepaired(log, audit)
			deps.Audit, w.auditStore = audit, audit
		}
	} else {
		snaps := newSnapshotter(cfg, log)
		if info, err := os.Stat(snaps.Dir()); cfg.Limits.Snapshots > 0 && err == nil && !info.IsDir() {
			// Not fatal: every other tool works; destructive_query and
			// snapshot fail closed, naming the setting, until it is fixed.
			log.Warn("the snapshot folder is a file, not a folder: destructive_query and snapshot will fail until "+
				"--snapshot-dir ("+envSnapshotDir+") names a folder or the file is moved away", "path", snaps.Dir())
		}
		deps.Snapshots = snaps
	}
	w.deps = deps
	w.svc = app.New(deps, app.Options{Limits: cfg.Limits, Session: w.session, Logger: log})
	return memory, nil
}

// newSnapshotter is the database's snapshotter under the settings.
func newSnapshotter(cfg Config, log *slog.Logger) *snapshot.Snapshotter {
	return snapshot.New(cfg.DBPath, snapshot.Options{Dir: cfg.SnapshotDir, Keep: cfg.Limits.Snapshots, Clock: systemClock{}, Logger: log})
}

// logRepaired says what --repair-server-objects rewrote or dropped.
func logRepaired(log *slog.Logger, store *sqlite.Store) {
	for _, obj := range store.Repaired() {
		log.Warn("repaired a server object that was not the server's own (--repair-server-objects): dropped it, then created the server's own objects", "object", obj)
	}
}

var _ ports.Tools = (*app.Service)(nil)
