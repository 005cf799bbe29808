package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Info describes one snapshot file.
type Info struct {
	// Name is the file name, which is what Restore takes.
	Name string
	// Path is the absolute path.
	Path string
	// Bytes is the file size.
	Bytes int64
	// Modified is the file's modification time (when it was written).
	Modified time.Time
}

// List returns this database's snapshots in the folder, oldest first
// (names sort by the time they were taken). A missing folder means none.
// Snapshots of other databases sharing the folder are left out.
func (s *Snapshotter) List() ([]Info, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail("cannot read the snapshot folder " + s.shownDir() + ": " + osReason(err))
	}
	var out []Info
	for _, e := range entries {
		if !e.Type().IsRegular() || !domain.IsSnapshotOf(s.stem, e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed by rotation meanwhile
		}
		out = append(out, Info{Name: e.Name(), Path: filepath.Join(s.dir, e.Name()), Bytes: info.Size(), Modified: info.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Resolve returns the path of this database's snapshot called name (a file
// name as List reports it, never a path).
//
// Errors: [domain.ErrNotFound] when there is no such snapshot.
func (s *Snapshotter) Resolve(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || !domain.IsSnapshotOf(s.stem, name) {
		return "", domain.Errorf(domain.ErrNotFound, "%s is not a snapshot name of this database: give a file name from the snapshot list, such as %s",
			domain.Quote(name), domain.SnapshotName(s.stem, time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC), 0))
	}
	path := filepath.Join(s.dir, name)
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return "", domain.Errorf(domain.ErrNotFound, "no snapshot %s in %s: list them first", domain.Quote(name), s.shownDir())
	}
	return path, nil
}

// RestoreTo copies the snapshot called name into a new database file at
// dst with SQLite's backup API, then checks the copy. dst must not exist;
// on failure nothing is left there.
func (s *Snapshotter) RestoreTo(ctx context.Context, name, dst string) error {
	src, err := s.Resolve(name)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return domain.Errorf(domain.ErrInvalidArgument, "cannot create %s: %s (it must not exist yet)", dst, osReason(err))
	}
	_ = f.Close()
	if err := restore(ctx, src, dst, "?_pragma=journal_mode(delete)"); err != nil {
		removePartial(dst)
		return domain.Errorf(domain.ErrSnapshot, "restoring %s into %s failed, nothing was written there: %s", name, dst, err.Error())
	}
	return nil
}

// RestoreOver copies the snapshot called name over the database itself,
// after taking a fresh snapshot of the database as it is now (returned).
// The copy is one write transaction through SQLite's backup API on the live
// file: other connections, a running server's included, wait for it like
// for any writer and then see the restored database, never a mix. It needs
// snapshots on (retention above 0), so what it replaces is kept.
func (s *Snapshotter) RestoreOver(ctx context.Context, name string) (fresh string, err error) {
	src, err := s.Resolve(name)
	if err != nil {
		return "", err
	}
	if s.keep <= 0 {
		return "", domain.Errorf(domain.ErrSnapshot, "nothing was restored: snapshots are off (retention 0), so the database "+
			"could not be saved first; raise --snapshots, or restore into a new file instead")
	}
	// The fresh snapshot may rotate the one to restore away: restore from a
	// private copy (a hidden partial name, which rotation leaves alone).
	src, err = s.privateCopy(src, name)
	if err != nil {
		return "", err
	}
	defer removePartial(src)
	fresh, err = s.Snapshot(ctx, "before restoring "+name)
	if err != nil {
		return "", err
	}
	if err := restore(ctx, src, s.dbPath, fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeoutMillis)); err != nil {
		return fresh, domain.Errorf(domain.ErrSnapshot, "restoring %s over %s failed, the database is unchanged: %s",
			name, filepath.Base(s.dbPath), s.reason(err))
	}
	return fresh, nil
}

// restore backs the database at src up into dst (opened with the URI
// parameters in params) and quick-checks the result.
func restore(ctx context.Context, src, dst, params string) error {
	db, err := sql.Open("sqlite", fileURI(src)+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		b, ok := dc.(backuper)
		if !ok {
			return errors.New("the SQLite driver offers no backup API")
		}
		bk, err := b.NewBackup(fileURI(dst) + params)
		if err != nil {
			return err
		}
		if err := stepAll(ctx, bk); err != nil {
			_ = bk.Finish()
			return err
		}
		out, err := bk.Commit()
		if err != nil {
			return err
		}
		check, err := pragmaText(ctx, out, "PRAGMA quick_check(1)")
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err == nil && check != "ok" {
			err = errors.New("the restored database fails SQLite's quick_check: " + check)
		}
		return err
	})
}

// privateCopy copies the snapshot file at src to a new hidden partial file
// in the folder. A snapshot is a finished, self-contained file that nothing
// writes to, so a byte copy is a consistent one.
func (s *Snapshotter) privateCopy(src, name string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", domain.Errorf(domain.ErrNotFound, "cannot open snapshot %s: %s", domain.Quote(name), osReason(err))
	}
	defer in.Close()
	out, err := os.CreateTemp(s.dir, "."+name+".*"+partialSuffix)
	if err != nil {
		return "", domain.Errorf(domain.ErrSnapshot, "nothing was restored: cannot create a file in the snapshot folder %s: %s", s.shownDir(), osReason(err))
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		removePartial(out.Name())
		return "", domain.Errorf(domain.ErrSnapshot, "nothing was restored: cannot copy snapshot %s: %s", domain.Quote(name), osReason(err))
	}
	return out.Name(), nil
}
