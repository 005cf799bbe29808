package snapshot

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	// Besides the Backup type used below, importing modernc.org/sqlite
	// registers its pure-Go (cgo-free) driver with database/sql as "sqlite",
	// which is how the source database is opened.
	"modernc.org/sqlite"
)

// busyTimeoutMillis is how long one backup attempt waits for a writer that
// holds the source database locked.
const busyTimeoutMillis = 5000

// busyAttempts bounds the backup attempts made while the source stays locked.
const busyAttempts = 3

// backuper is the part of modernc.org/sqlite's driver connection that starts
// an online backup into the database file at a URI.
type backuper interface {
	NewBackup(dstURI string) (*sqlite.Backup, error)
}

// copyToTemp backs the database up into a new hidden file in the snapshot
// folder whose name never matches a snapshot's, syncs it, and returns its
// path. On failure nothing is left behind.
func (s *Snapshotter) copyToTemp(ctx context.Context, name string) (string, error) {
	info, err := os.Stat(s.dbPath)
	if err != nil {
		return "", s.fail("cannot read the database " + filepath.Base(s.dbPath) + ": " + osReason(err))
	}
	if !info.Mode().IsRegular() {
		return "", s.fail("the database " + filepath.Base(s.dbPath) + " is not a regular file")
	}
	f, err := os.CreateTemp(s.dir, "."+name+".*"+partialSuffix)
	if err != nil {
		return "", s.fail("cannot create a file in the snapshot folder " + s.shownDir() + ": " + osReason(err))
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		removePartial(tmp)
		return "", s.fail("cannot create a file in the snapshot folder " + s.shownDir() + ": " + osReason(err))
	}
	if err := s.backup(ctx, tmp); err != nil {
		removePartial(tmp)
		return "", err
	}
	// The copy is as private as the database: same permission bits.
	if err := os.Chmod(tmp, info.Mode().Perm()); err != nil {
		s.log.Warn("snapshot permissions not copied from the database", "error", err)
	}
	if err := syncFile(tmp); err != nil {
		removePartial(tmp)
		return "", s.fail("cannot sync the snapshot file in " + s.shownDir() + ": " + osReason(err))
	}
	return tmp, nil
}

// backup copies every page of the source's main schema into the empty file
// at tmp with one backup step, so the copy is one read transaction of the
// source: consistent even while other processes write (in WAL mode they are
// not even blocked). The copy is then switched to rollback journaling, so it
// is a single self-contained file that opens without -wal or -shm files.
func (s *Snapshotter) backup(ctx context.Context, tmp string) error {
	base := filepath.Base(s.dbPath)
	// mode=rw: a missing database is an error, never silently created.
	src, err := sql.Open("sqlite", fileURI(s.dbPath)+fmt.Sprintf("?mode=rw&_pragma=busy_timeout(%d)", busyTimeoutMillis))
	if err != nil {
		return s.fail("cannot open the database " + base + ": " + s.reason(err))
	}
	defer src.Close()
	conn, err := src.Conn(ctx)
	if err != nil {
		return s.fail("cannot open the database " + base + ": " + s.reason(err))
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		b, ok := dc.(backuper)
		if !ok {
			return s.fail("the SQLite driver offers no backup API")
		}
		// The destination is a fresh private file that is thrown away on
		// any failure, so it needs no journal; it is synced once at the end.
		bk, err := b.NewBackup(fileURI(tmp) + "?_pragma=journal_mode(off)&_pragma=synchronous(off)")
		if err != nil {
			return s.fail("cannot open the snapshot file: " + s.reason(err))
		}
		if err := stepAll(ctx, bk); err != nil {
			_ = bk.Finish()
			return s.fail("copying " + base + " failed: " + s.reason(err))
		}
		dst, err := bk.Commit()
		if err != nil {
			return s.fail("copying " + base + " failed: " + s.reason(err))
		}
		// A copy of a damaged database must not pass for a good snapshot
		// (rotation would then delete the good ones), nor let the
		// destructive statement it guards run on a damaged file.
		check, err := pragmaText(ctx, dst, "PRAGMA quick_check(1)")
		if isCorrupt(err) {
			check, err = err.Error(), nil
		}
		if err == nil && check != "ok" {
			_ = dst.Close()
			return s.fail("the database " + base + " is damaged (SQLite's quick_check: " + s.reason(errors.New(check)) +
				"); no snapshot was written and the older ones were kept. Restore the newest snapshot, or save what is left with the sqlite3 shell's .recover")
		}
		if err != nil {
			_ = dst.Close()
			return s.fail("cannot check the snapshot file: " + s.reason(err))
		}
		mode, err := pragmaText(context.WithoutCancel(ctx), dst, "PRAGMA journal_mode=DELETE")
		if cerr := dst.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return s.fail("cannot finish the snapshot file: " + s.reason(err))
		}
		if mode = strings.ToLower(mode); mode != "delete" {
			return s.fail("cannot finish the snapshot file: its journal mode stayed " + mode)
		}
		return nil
	})
}

// stepAll copies all remaining pages in one step, retrying a few times while
// a writer keeps the source locked past the busy timeout.
func stepAll(ctx context.Context, bk *sqlite.Backup) error {
	for attempt := 1; ; attempt++ {
		more, err := bk.Step(-1)
		switch {
		case err == nil && !more:
			return nil
		case err == nil:
			continue // cannot happen with -1; step on
		case !isBusy(err) || attempt >= busyAttempts || ctx.Err() != nil:
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pragmaText runs a PRAGMA on the copy and returns its first answer. The
// copy is switched out of WAL mode with `PRAGMA journal_mode=DELETE` (a
// backup copies the source's header, WAL flag included), so it is a single
// self-contained file.
func pragmaText(ctx context.Context, dst driver.Conn, pragma string) (string, error) {
	q, ok := dst.(driver.QueryerContext)
	if !ok {
		return "", errors.New("the SQLite driver cannot run a query on the snapshot")
	}
	rows, err := q.QueryContext(ctx, pragma, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	vals := make([]driver.Value, 1)
	if err := rows.Next(vals); err != nil {
		return "", err
	}
	text, _ := vals[0].(string)
	return text, nil
}

// isBusy reports whether err is SQLite's "database is locked" in any form.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == codeBusy || code == codeLocked
}

// isCorrupt reports whether err is SQLite's "database disk image is
// malformed" or "file is not a database".
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == codeCorrupt || code == codeNotADB
}

// The primary result codes the snapshot tells apart, as sqlite3.h numbers
// them (the driver's Error.Code()&0xff). Named here rather than imported:
// only the SQLite adapter's engine package links modernc.org/sqlite/lib.
const (
	codeBusy    = 5
	codeLocked  = 6
	codeCorrupt = 11
	codeNotADB  = 26
)

// reason is an error's text fit for the agent: SQLite's own message, with the
// database's absolute path, should it appear, cut down to its file name
// (and with [Options.RelativeNames] the snapshot folder's to its name).
func (s *Snapshotter) reason(err error) string {
	text := strings.ReplaceAll(err.Error(), s.dbPath, filepath.Base(s.dbPath))
	if s.rel {
		text = strings.ReplaceAll(text, s.dir, filepath.Base(s.dir))
	}
	return text
}

// fileURI turns an absolute path into a SQLite `file:` URI, escaping the
// characters (`?`, `#`, `%`, ...) that would otherwise end or alter the path.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows volume: file:///C:/...
	}
	return "file://" + (&url.URL{Path: p}).EscapedPath()
}

// syncFile flushes a file's contents to stable storage.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// removePartial deletes a temporary copy and any journal SQLite left next to it.
func removePartial(tmp string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		_ = os.Remove(tmp + suffix)
	}
}
