package litestream

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	ls "github.com/benbjohnson/litestream"
	"github.com/benbjohnson/litestream/file"
)

// Defaults of [Options].
const (
	// DefaultSyncInterval is Litestream's own default time between syncs.
	DefaultSyncInterval = ls.DefaultSyncInterval
	// DefaultPollInterval is how often a process without the lock tries
	// again to take it.
	DefaultPollInterval = time.Second
	// DefaultShutdownSync is how long the last sync on shutdown may take.
	DefaultShutdownSync = 5 * time.Second
	// busyTimeout is how long Litestream waits for the server's writers, as
	// long as the server's connections wait for Litestream's checkpoints.
	busyTimeout = 5 * time.Second
)

// LockSuffix is appended to the database path to name the file whose lock
// elects the one replicating process.
const LockSuffix = ".replicate.lock"

// Options configure a [Replicator].
type Options struct {
	// URL is the Litestream replica URL (see [Schemes]).
	URL string
	// SyncInterval is the time between syncs to the replica, and between
	// reads of the WAL; 0 means [DefaultSyncInterval].
	SyncInterval time.Duration
	// PollInterval is how often a process that does not hold the lock tries
	// again; 0 means [DefaultPollInterval].
	PollInterval time.Duration
	// ShutdownSync bounds the final sync when the server stops; 0 means
	// [DefaultShutdownSync].
	ShutdownSync time.Duration
	// Logger receives the replicator's and Litestream's log lines (stderr).
	Logger *slog.Logger
	// Verbose passes on Litestream's own informational lines; without it
	// only its warnings and errors reach Logger.
	Verbose bool
}

// Replicator streams one database to one replica, while it holds the
// database's replication lock. Create it with [New], then call Run.
type Replicator struct {
	path     string // the database, every symbolic link resolved
	lockPath string
	lock     *os.File // opened by New, closed (and so released) by Run
	opts     Options
	log      *slog.Logger
}

// New prepares replication of the database at dbPath (which must exist) to
// opts.URL. A malformed or unsupported URL is an error that says what to
// write; nothing is contacted yet.
func New(dbPath string, opts Options) (*Replicator, error) {
	if err := CheckURL(opts.URL); err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(dbPath)
	if err != nil {
		return nil, fmt.Errorf("replicate %s: %w", filepath.Base(dbPath), err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, err
	}
	if opts.SyncInterval <= 0 {
		opts.SyncInterval = DefaultSyncInterval
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.ShutdownSync <= 0 {
		opts.ShutdownSync = DefaultShutdownSync
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	// Litestream's LogWriter defaults to stdout, which carries the protocol
	// here; it is unused by the library today, but nothing may ever write
	// there.
	ls.LogWriter = os.Stderr
	r := &Replicator{path: real, lockPath: real + LockSuffix, opts: opts, log: log.With("replica", Redact(opts.URL))}
	// Opened now, so that a folder where the lock cannot be made stops the
	// server at startup instead of leaving it running unreplicated.
	if r.lock, err = os.OpenFile(r.lockPath, os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		return nil, fmt.Errorf("replication lock %s: %w; make the database's folder writable, or run without --replicate", filepath.Base(r.lockPath), err)
	}
	return r, nil
}

// Run waits for the replication lock, then replicates until ctx ends; on the
// way out it syncs once more (bounded by ShutdownSync), stops Litestream and
// releases the lock. A process that does not get the lock serves normally:
// Run says so once in the log and polls for the lock, so when the
// replicating process exits this one takes over. Run returns an error only
// when the lock cannot be taken at all; replication errors are logged and
// retried, since the server keeps serving either way.
// Call it once.
func (r *Replicator) Run(ctx context.Context) error {
	f := r.lock
	defer f.Close()
	waited := false
	for {
		held, err := tryLock(f)
		if err != nil {
			err = fmt.Errorf("replication lock %s: %w", filepath.Base(r.lockPath), err)
			r.log.Error("not replicating", "err", err)
			return err
		}
		if held {
			break
		}
		if !waited {
			r.log.Info("another process replicates this database; serving without replicating, and taking over when it exits", "lock", r.lockPath)
			waited = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(r.opts.PollInterval):
		}
	}
	// For people looking at the folder: who holds it. The lock, not this
	// text, is what counts.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	r.log.Info("replicating with Litestream", "sync_interval", r.opts.SyncInterval.String(), "took_over", waited, "pid", os.Getpid())
	r.replicate(ctx)
	return nil
}

// replicate runs Litestream until ctx ends. A start that fails (the store is
// unreachable, say) is logged and tried again with a growing pause.
func (r *Replicator) replicate(ctx context.Context) {
	backoff := r.opts.SyncInterval
	for {
		store, err := r.start(ctx)
		if err == nil {
			<-ctx.Done()
			r.stop(store)
			return
		}
		r.log.Error("replication could not start; the server keeps serving and tries again", "err", err, "retry_in", backoff.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// start opens a Litestream store for the database and its one replica.
func (r *Replicator) start(ctx context.Context) (*ls.Store, error) {
	client, err := newClient(r.opts.URL)
	if err != nil {
		return nil, err
	}
	log := libraryLogger(r.log, r.opts.Verbose)
	setLogger(client, log)
	db := ls.NewDB(r.path)
	db.MonitorInterval = r.opts.SyncInterval
	db.BusyTimeout = busyTimeout
	replica := ls.NewReplicaWithClient(db, client)
	replica.SyncInterval = r.opts.SyncInterval
	db.Replica = replica
	if fc, ok := client.(*file.ReplicaClient); ok {
		fc.Replica = replica // keeps the database's file modes on the replica
	}
	levels := make(ls.CompactionLevels, len(ls.DefaultCompactionLevels))
	for i, l := range ls.DefaultCompactionLevels {
		levels[i] = &ls.CompactionLevel{Level: l.Level, Interval: l.Interval}
	}
	store := ls.NewStore([]*ls.DB{db}, levels)
	store.Logger = log
	db.SetLogger(log)
	store.SetShutdownSyncTimeout(r.opts.ShutdownSync)
	// Opening and the first sync are not cut short when ctx ends meanwhile
	// (a stop right after the start): a replicator that never attached
	// would skip the last sync, and lose a short session. They are bounded
	// like the last sync instead.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.ShutdownSync)
	defer cancel()
	if err := store.Open(octx); err != nil {
		_ = store.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	// Litestream attaches to the file on its first sync, one interval from
	// now, and a database it never attached to gets no last sync on close:
	// a session shorter than the interval would replicate nothing. Attach
	// now (its monitor retries if this fails).
	if err := db.Sync(octx); err != nil {
		r.log.Warn("first sync failed; Litestream retries every sync interval", "err", err)
	}
	return store, nil
}

// stop syncs once more and closes Litestream, within ShutdownSync (plus a
// second for the local work).
func (r *Replicator) stop(store *ls.Store) {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.ShutdownSync+time.Second)
	defer cancel()
	if err := store.Close(ctx); err != nil {
		r.log.Warn("the last sync before exit did not finish; the replica may miss the latest commits until a server replicates this database again", "err", err)
		return
	}
	r.log.Info("replication stopped; replica up to date")
}
