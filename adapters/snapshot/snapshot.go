// Package snapshot is the filesystem snapshotter: it copies the database into
// a rotated folder of timestamped SQLite files. It uses SQLite's online backup
// API through modernc.org/sqlite, so every snapshot is a complete, consistent
// database even while other processes write to the source.
//
// A snapshot appears under its final name only once it is complete and
// synced: the copy is written to a hidden `.<name>.<random>.partial` file in
// the same folder and then hard-linked to the first free name (no-clobber),
// so two processes never take the same name and a half-written file never
// looks like a snapshot. Each snapshot gets a hidden `.<name>.source` marker
// holding the absolute path of the database it was taken from; rotation only
// ever deletes snapshots whose marker names this database, because databases
// with the same stem (`memory.db`, `memory.sqlite`) write identically named
// snapshots into a shared folder.
package snapshot

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

var _ ports.Snapshotter = (*Snapshotter)(nil)

// Options are the optional settings of a [Snapshotter]; the zero value
// means snapshots are off.
type Options struct {
	// Dir is the snapshot folder. Empty means `<db dir>/<db stem>.snapshots`.
	// It is taken as given: a leading `~` is a folder named `~` (the
	// command line expands `~` once, before any adapter sees a path); a
	// relative folder is resolved against the working directory when [New]
	// runs.
	Dir string
	// Keep is how many snapshots of this database to retain; 0 or less
	// turns snapshots off.
	Keep int
	// Clock stamps snapshot names; nil means the system clock.
	Clock ports.Clock
	// Logger receives one line per snapshot and rotation warnings; nil
	// discards them.
	Logger *slog.Logger
	// RelativeNames makes [Snapshotter.Snapshot] return the new file's
	// name relative to the snapshot folder instead of its absolute path,
	// and its errors name the folder by its own name: for answers that
	// leave the machine (the HTTP transport), where no absolute path may
	// appear. The log keeps absolute paths (it is the operator's).
	RelativeNames bool
}

// Snapshotter writes snapshots of one database file into one folder and
// keeps the newest [Options.Keep] of them. It is safe for concurrent use, also
// by several processes sharing the folder.
type Snapshotter struct {
	dbPath string // absolute path of the source database
	stem   string
	dir    string // absolute snapshot folder
	keep   int
	clock  ports.Clock
	log    *slog.Logger
	rel    bool // Options.RelativeNames
}

// New returns a snapshotter for the database at dbPath. It touches nothing on
// disk; the folder is created by the first snapshot.
func New(dbPath string, opts Options) *Snapshotter {
	db := absPath(dbPath)
	stem := domain.SnapshotStem(db)
	dir := filepath.Join(filepath.Dir(db), stem+".snapshots")
	if opts.Dir != "" {
		dir = absPath(opts.Dir)
	}
	s := &Snapshotter{dbPath: db, stem: stem, dir: dir, keep: opts.Keep, clock: opts.Clock, log: opts.Logger, rel: opts.RelativeNames}
	if s.clock == nil {
		s.clock = systemClock{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Dir returns the absolute snapshot folder.
func (s *Snapshotter) Dir() string { return s.dir }

// shownDir is the snapshot folder as answers name it: its absolute path,
// or with [Options.RelativeNames] its own name.
func (s *Snapshotter) shownDir() string {
	if s.rel {
		return filepath.Base(s.dir)
	}
	return s.dir
}

// Snapshot copies the database into a new snapshot, rotates away this
// database's oldest snapshots beyond the retention, and returns the new
// snapshot's absolute path (with [Options.RelativeNames], its name in the
// snapshot folder). With retention 0 it returns "" and touches
// nothing. The reason only goes to the log.
//
// Errors: [domain.ErrSnapshot] when the snapshot could not be written; the
// message says why and no partial file is left behind. Rotation failures are
// logged, never returned.
func (s *Snapshotter) Snapshot(ctx context.Context, reason string) (string, error) {
	if s.keep <= 0 {
		return "", nil
	}
	if ctx.Err() != nil {
		return "", s.fail("the call was cancelled before the copy started")
	}
	start := time.Now()
	at := s.clock.Now()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		if info, serr := os.Stat(s.dir); serr == nil && !info.IsDir() {
			return "", s.fail("the snapshot folder " + s.shownDir() + " is a file, not a folder; it was left as it is")
		}
		return "", s.fail("cannot create the snapshot folder " + s.shownDir() + ": " + osReason(err))
	}
	tmp, err := s.copyToTemp(ctx, domain.SnapshotName(s.stem, at, 0))
	if err != nil {
		return "", err
	}
	path, err := s.publish(tmp, at)
	if err != nil {
		return "", err
	}
	s.rotate()
	s.log.Info("snapshot written", "path", path, "reason", reason, "took", time.Since(start).Round(time.Millisecond))
	if s.rel {
		return filepath.Base(path), nil
	}
	return path, nil
}

// publish gives the complete temporary copy the first free snapshot name of
// its millisecond, marks it as this database's and makes the names durable.
func (s *Snapshotter) publish(tmp string, at time.Time) (string, error) {
	path, err := claimName(tmp, func(seq int) string {
		return filepath.Join(s.dir, domain.SnapshotName(s.stem, at, seq))
	})
	removePartial(tmp) // after a hard link, the temporary name goes
	if err != nil {
		return "", s.fail("cannot name the snapshot in " + s.shownDir() + ": " + osReason(err))
	}
	marker := filepath.Join(s.dir, markerName(filepath.Base(path)))
	if err := s.markOwned(filepath.Base(path)); err != nil {
		s.log.Warn("snapshot not marked as this database's; rotation will leave it alone",
			"path", path, "error", err)
	}
	if err := syncDir(s.dir); err != nil {
		_ = os.Remove(path)
		_ = os.Remove(marker)
		return "", s.fail("cannot sync the snapshot folder " + s.shownDir() + ": " + osReason(err))
	}
	return path, nil
}

// fail builds the error every failed snapshot returns.
func (s *Snapshotter) fail(reason string) error {
	return domain.Errorf(domain.ErrSnapshot, "snapshot could not be written (%s)", reason)
}

// osReason is the part of an OS error worth showing: the errno text without
// the operation and path Go adds (those could name paths outside the
// snapshot folder).
func osReason(err error) string {
	var pe *os.PathError
	var le *os.LinkError
	var se *os.SyscallError
	switch {
	case errors.As(err, &pe):
		return pe.Err.Error()
	case errors.As(err, &le):
		return le.Err.Error()
	case errors.As(err, &se):
		return se.Err.Error()
	}
	return err.Error()
}

// absPath makes p absolute; if the working directory is unknown it keeps p.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// systemClock is the default [ports.Clock].
type systemClock struct{}

// Now returns the current time.
func (systemClock) Now() time.Time { return time.Now() }
