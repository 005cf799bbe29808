package main

import (
	"context"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"io"
	"log/slog"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	wiring "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// newLogger is the stderr logger every mode uses.
func newLogger(cfg settings.Config, stderr io.Writer) *slog.Logger {
	level := slog.LevelInfo
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// wire opens the database and connects every adapter to the core exactly as
// the server runs it (package cmd/wire, which the test harness uses too);
// session names this process in events and audit rows. In read-only mode
// the audit log goes to --audit-db, or as JSON lines to stderr.
func wire(ctx context.Context, cfg settings.Config, log *slog.Logger, stderr io.Writer, session string) (*wiring.Wiring, error) {
	if err := limitHeap(cfg); err != nil {
		return nil, err
	}
	return wiring.Open(ctx, wireOptions(cfg, log, stderr, session))
}

// limitHeap caps SQLite's heap, which is process-wide; the soft limit makes
// page caches recycle before the hard one fails a statement
// (docs/decisions.md#sqlite-memory).
func limitHeap(cfg settings.Config) error {
	return sqlite.LimitHeap(int64(cfg.Limits.MaxSQLiteHeapBytes), int64(cfg.Limits.MaxSQLiteHeapBytes/2))
}

// wireOptions are the settings as the composition root takes them.
func wireOptions(cfg settings.Config, log *slog.Logger, stderr io.Writer, session string) wiring.Options {
	var sdkLog *slog.Logger
	if cfg.Verbose {
		sdkLog = log // the SDK's session chatter only with -v
	}
	o := wiring.Options{
		DBPath: cfg.DBPath, ReadOnly: cfg.ReadOnly, Limits: cfg.Limits,
		RepairServerObjects: cfg.RepairServerObjects, NoAutoCheckpoint: cfg.Replicate != "",
		RGPath: cfg.RGPath, AuditDB: cfg.AuditDB, CheckAuditDB: settings.CheckAuditPath,
		SnapshotDir: cfg.SnapshotDir, SnapshotDirSetting: "--snapshot-dir (" + settings.EnvSnapshotDir + ")",
		Structured: cfg.Structured, KeepSecrets: cfg.KeepSecrets, ChainKey: cfg.ChainKey, HidePaths: cfg.HTTP.Addr != "", Version: buildVersion(), Session: session,
		Logger: log, SDKLogger: sdkLog, Stderr: stderr, Confirm: cfg.Confirm,
	}
	if cfg.CLI.Looking {
		o.Audit = unlogged{}
	}
	return o
}

// newSnapshotter is the database's snapshotter under the settings.
func newSnapshotter(cfg settings.Config, log *slog.Logger) *snapshot.Snapshotter {
	return wiring.NewSnapshotter(cfg.DBPath, cfg.SnapshotDir, cfg.Limits.Snapshots, systemClock{}, log)
}

var _ ports.Tools = (*app.Service)(nil)
