// Package wire connects the adapters to the core for one database: the
// composition root. The server binary (cmd/mcp-sqlite-memory, its server
// and its subcommands) and the in-process test harness (test/harness) both
// build the server here, so the tests run the wiring that ships: the same
// audit sink in read-only mode, the same searcher with its fallback, the
// same snapshotter. It lives under cmd, not app, because it imports the
// adapters; it is not internal because test/harness must import it.
//
// Settings arrive parsed and checked: paths absolute with ~ expanded
// (cmd/mcp-sqlite-memory does that, once), limits validated. Process-wide
// settings (SQLite's heap limit, replication) stay with the binary, which
// owns the process; a test process hosts many servers at once.
package wire

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/jsonlog"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/approval"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/memory"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/recall"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/schema"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Options are the settings one server is built from.
type Options struct {
	// DBPath is the database file, absolute.
	DBPath   string
	ReadOnly bool
	Limits   domain.Limits
	// RepairServerObjects is --repair-server-objects.
	RepairServerObjects bool
	// NoAutoCheckpoint leaves WAL checkpoints to a replicator (--replicate).
	NoAutoCheckpoint bool
	// RGPath is --rg: the ripgrep program, "" for "rg" on PATH. When it
	// cannot be found, search_text uses the in-process regexp2 engine.
	RGPath string
	// AuditDB is --audit-db: in read-only mode the audit log goes to this
	// SQLite file, or as JSON lines to Stderr when it is "".
	AuditDB string
	// CheckAuditDB, when set, vets AuditDB against the database's resolved
	// path and its snapshot folders and returns the path to open.
	CheckAuditDB func(db string, snapDirs []string, audit string) (string, error)
	// SnapshotDir is --snapshot-dir, "" for the folder beside the database.
	SnapshotDir string
	// SnapshotDirSetting names the setting in the warning about a snapshot
	// folder that is a file ("--snapshot-dir (MCP_SQLITE_SNAPSHOT_DIR)").
	SnapshotDirSetting string
	// Structured is --structured.
	Structured bool
	// KeepSecrets is --redact-secrets=false (app.Options.KeepSecrets).
	KeepSecrets bool
	// ChainKey is the key of --chain-key-file, nil without one: the store
	// signs the head with it and the core checks it.
	ChainKey *domain.ChainKey
	// HidePaths: answers leave the machine (HTTP), so none names an
	// absolute path: snapshots are named relative to their folder and the
	// log records clients receive cut paths to base names. Over stdio a
	// snapshot keeps its absolute path, for the person on this machine.
	HidePaths bool
	// Version is the server's version in the MCP handshake.
	Version string
	// Session names this process in events and audit rows.
	Session string
	// Logger receives the server's logs (nil discards); SDKLogger, when
	// set, the MCP SDK's own (-v).
	Logger, SDKLogger *slog.Logger
	// Stderr receives read-only mode's JSON audit lines.
	Stderr io.Writer

	// Clock replaces the system clock (tests where time shows).
	Clock ports.Clock
	// Search replaces the searcher chosen from RGPath.
	Search ports.TextSearcher
	// Audit replaces the audit sink chosen above.
	Audit ports.AuditSink
	// WrapSnapshots, when set, wraps the snapshotter (to slow it down).
	WrapSnapshots func(ports.Snapshotter) ports.Snapshotter
	// Confirm are --confirm, --confirm-fallback and --confirm-wait.
	Confirm domain.ConfirmSettings
}

// Wiring is one database's adapters, the core and the MCP server on top.
// Close releases it all.
type Wiring struct {
	// Store is the database.
	Store *sqlite.Store
	// AuditStore is the SQLite file holding query_log: Store, or the
	// --audit-db file in read-only mode; nil when audit lines go to Stderr.
	AuditStore *sqlite.Store
	// Deps are the ports the core was given.
	Deps app.Deps
	// Service is the core; with Options.Structured its results carry
	// their tables (app.Service.KeepingTables).
	Service *app.Service
	Server  *mcpserver.Server
	// Memory reports whether the memory tools are offered (read-only mode
	// on a database without the memory tables offers none).
	Memory bool

	o            Options
	log          *slog.Logger // the core's: stderr and the MCP clients
	transportLog *slog.Logger // stderr only
	clientLog    *mcpserver.ClientLog
	closers      []func() error
}

// Close closes the stores, last opened first.
func (w *Wiring) Close() {
	for i := len(w.closers) - 1; i >= 0; i-- {
		_ = w.closers[i]()
	}
	w.closers = nil
}

// Open opens the database and connects every adapter to the core exactly
// as the server runs it: [New], then [Wiring.OpenCore], then the server of
// the core's tools ([Wiring.NewServer]).
func Open(ctx context.Context, o Options) (*Wiring, error) {
	w := New(o)
	if err := w.OpenCore(ctx); err != nil {
		w.Close() // what was opened before the failure
		return nil, err
	}
	w.Server = w.NewServer(w.Service, w.Memory)
	return w, nil
}

// New prepares the wiring without touching the database: the logs, so a
// server can be built (NewServer) and answer the MCP handshake while the
// database opens.
func New(o Options) *Wiring {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Clock == nil {
		o.Clock = systemClock{}
	}
	// What the core and the snapshotter log also goes to the MCP clients
	// that asked for log messages (logging/setLevel). The transport's and
	// the SDK's own records do not: sending one record would log another.
	clientLog := mcpserver.NewClientLog()
	return &Wiring{o: o, transportLog: o.Logger, clientLog: clientLog,
		log: slog.New(slog.NewMultiHandler(o.Logger.Handler(), clientLog))}
}

// NewServer is the MCP server offering tools under the options; memory
// offers the memory tools (read-only mode on a database without the memory
// tables offers none). Its tool list depends on nothing else.
func (w *Wiring) NewServer(tools ports.Tools, memory bool) *mcpserver.Server {
	o := w.o
	return mcpserver.New(tools, mcpserver.Options{Version: o.Version, Limits: o.Limits, ReadOnly: o.ReadOnly, Memory: memory, HidePaths: o.HidePaths,
		Logger: o.SDKLogger, Log: w.transportLog, ClientLog: w.clientLog, Structured: o.Structured})
}

// OpenCore opens the database (and read-only mode's --audit-db) and builds
// the core, w.Service. On an error the caller closes w.
func (w *Wiring) OpenCore(ctx context.Context) (err error) {
	o, log := w.o, w.log
	store, err := sqlite.Open(ctx, o.DBPath, sqlite.Options{QueryTimeout: o.Limits.QueryTimeout, ReadOnly: o.ReadOnly, MaxCellChars: o.Limits.MaxCellChars, ChainKey: o.ChainKey,
		RepairServerObjects: o.RepairServerObjects, NoAutoCheckpoint: o.NoAutoCheckpoint,
		ApprovalQueue: o.Confirm.Fallback == domain.FallbackQueue && !o.ReadOnly, ReadCacheBytes: readCacheBytes(o.Limits.MaxSQLiteHeapBytes)})
	if err != nil {
		return err
	}
	w.Store, w.AuditStore = store, store
	w.closers = append(w.closers, store.Close)
	logRepaired(log, store)
	if store.IndexRebuilt() {
		log.Info("built the memory search index (search_memory): the file had none, or it did not match the memory tables")
	}

	search := o.Search
	if search == nil {
		search = Searcher(o.RGPath, log)
	}
	mem := memory.New(store)
	deps := app.Deps{Statements: sqlite.NewStatementRunner(store), Schema: schema.NewReader(store), Views: schema.NewViewWriter(store),
		Candidates: sqlite.NewCandidateSource(store), Memory: mem, Audit: sqlite.NewAuditSink(store), Clock: o.Clock, Search: search,
		Recall: recall.New(store)}
	w.Memory = true
	if o.ReadOnly {
		if w.Memory, err = mem.Available(ctx); err != nil {
			return err
		}
		deps.Audit, w.AuditStore = jsonlog.New(o.Stderr), nil
		if o.AuditDB != "" {
			if err := w.openAuditDB(ctx, o, log, &deps); err != nil {
				return err
			}
		}
	} else {
		snaps := snapshot.New(o.DBPath, snapshot.Options{Dir: o.SnapshotDir, Keep: o.Limits.Snapshots, Clock: o.Clock, Logger: log, RelativeNames: o.HidePaths})
		if info, err := os.Stat(snaps.Dir()); o.Limits.Snapshots > 0 && err == nil && !info.IsDir() {
			// Not fatal: every other tool works; destructive_query and
			// snapshot fail closed, naming the setting, until it is fixed.
			log.Warn("the snapshot folder is a file, not a folder: destructive_query and snapshot will fail until "+
				o.SnapshotDirSetting+" names a folder or the file is moved away", "path", snaps.Dir())
		}
		deps.Snapshots = snaps
		deps.Impact = sqlite.NewImpactMeter(store)
		if o.Confirm.Fallback == domain.FallbackQueue {
			deps.Queue = approval.New(store, o.Clock)
		}
		if o.WrapSnapshots != nil {
			deps.Snapshots = o.WrapSnapshots(snaps)
		}
	}
	if o.Audit != nil {
		deps.Audit = o.Audit
	}
	w.Deps = deps
	w.Service = app.New(deps, app.Options{Limits: o.Limits, Session: o.Session, Logger: log,
		Confirm: o.Confirm, ConfirmDB: filepath.Base(o.DBPath), KeepSecrets: o.KeepSecrets, ChainKey: o.ChainKey})
	// Closed first: it writes the audit rows still owed (app/owed.go)
	// while the stores are open.
	w.closers = append(w.closers, w.Service.Close)
	if o.Structured { // the server answers with the tables as typed values too
		w.Service = w.Service.KeepingTables()
	}
	return nil
}

// openAuditDB opens read-only mode's --audit-db as the audit sink.
func (w *Wiring) openAuditDB(ctx context.Context, o Options, log *slog.Logger, deps *app.Deps) error {
	path := o.AuditDB
	if o.CheckAuditDB != nil {
		snapDirs := []string{snapshot.New(o.DBPath, snapshot.Options{Dir: o.SnapshotDir}).Dir(), snapshot.New(w.Store.Path(), snapshot.Options{}).Dir()}
		var err error
		if path, err = o.CheckAuditDB(w.Store.Path(), snapDirs, o.AuditDB); err != nil {
			return err
		}
	}
	audit, err := sqlite.Open(ctx, path, sqlite.Options{RepairServerObjects: o.RepairServerObjects})
	if err != nil {
		return fmt.Errorf("open audit database: %w", err)
	}
	w.closers = append(w.closers, audit.Close)
	logRepaired(log, audit)
	deps.Audit, w.AuditStore = sqlite.NewAuditSink(audit), audit
	return nil
}

// NewSnapshotter is the database's snapshotter: dir (or the folder beside
// the database when ""), keeping keep snapshots.
func NewSnapshotter(dbPath, dir string, keep int, clock ports.Clock, log *slog.Logger) *snapshot.Snapshotter {
	if clock == nil {
		clock = systemClock{}
	}
	return snapshot.New(dbPath, snapshot.Options{Dir: dir, Keep: keep, Clock: clock, Logger: log})
}

// Searcher picks ripgrep when it can be found, falling back to the
// in-process engine for a call where it cannot start, else the in-process
// engine alone; both give the same answers (test/contract proves it).
func Searcher(rgPath string, log *slog.Logger) ports.TextSearcher {
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

// logRepaired says what --repair-server-objects rewrote or dropped.
func logRepaired(log *slog.Logger, store *sqlite.Store) {
	for _, obj := range store.Repaired() {
		log.Warn("repaired a server object that was not the server's own (--repair-server-objects): dropped it, then created the server's own objects", "object", obj)
	}
}

// systemClock is the real clock.
type systemClock struct{}

// Now returns the current time.
func (systemClock) Now() time.Time { return time.Now() }

// readCacheBytes is the page cache of each agent read connection: a
// quarter of SQLite's heap cap (16 MiB by default), 16 MiB when the heap is
// not capped. SQLite's sorter also buffers up to the cache size in memory
// before it spills, so a larger cache raises the peak of large sorts: with
// half the cap (32 MiB) the sorted billion-row bomb of TestResourceBombs
// peaked at 104 MB against its 100 MB budget. Past the soft limit (half the
// cap) page caches stop growing and sorters spill early anyway.
func readCacheBytes(maxHeap int) int {
	if maxHeap <= 0 {
		return 16 << 20
	}
	return maxHeap / 4
}
