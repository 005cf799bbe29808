package snapshot

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

const (
	// partialSuffix ends the hidden name a copy is written under; with the
	// leading dot it can never match a snapshot name.
	partialSuffix = ".partial"
	// markerSuffix ends the hidden `.<snapshot name>.source` file naming the
	// database a snapshot was taken from.
	markerSuffix = ".source"
	// maxSeq bounds the collision suffixes tried within one millisecond.
	maxSeq = 10_000
	// maxMarkerBytes bounds how much of a marker is read.
	maxMarkerBytes = 64 << 10
)

// errTooManyCollisions means every name of a millisecond is taken.
var errTooManyCollisions = errors.New("too many snapshots in one millisecond")

// claimName gives the file at tmp the first name nameAt(0), nameAt(1), ...
// that does not exist yet, without ever replacing a file: a hard link fails
// if the name exists, so two processes can never take the same name, and
// the name appears only with complete contents. Where hard links are not
// supported, the name is reserved with an exclusive create and the copy
// renamed over the empty placeholder.
func claimName(tmp string, nameAt func(seq int) string) (string, error) {
	linkable := true
	for seq := range maxSeq {
		path := nameAt(seq)
		if linkable {
			err := os.Link(tmp, path)
			if err == nil {
				return path, nil
			}
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			linkable = false
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_ = f.Close()
		if err := os.Rename(tmp, path); err != nil {
			_ = os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", errTooManyCollisions
}

// syncDir makes a folder's entries (new, renamed and removed names) durable.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // folders cannot be opened for syncing there; NTFS journals names
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		_ = d.Close()
		return err
	}
	return d.Close()
}

// markerName is the hidden file naming the database the snapshot came from.
func markerName(snapshot string) string { return "." + snapshot + markerSuffix }

// markedSnapshot returns the snapshot name a marker file belongs to.
func markedSnapshot(fileName string) (string, bool) {
	rest, ok := strings.CutPrefix(fileName, ".")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, markerSuffix)
}

// partialSnapshot returns the snapshot name a temporary copy (or the
// journal SQLite keeps beside it) was written for.
func partialSnapshot(fileName string) (string, bool) {
	rest, ok := strings.CutPrefix(fileName, ".")
	if !ok {
		return "", false
	}
	for _, journal := range []string{"", "-journal", "-wal", "-shm"} {
		if r, ok := strings.CutSuffix(rest, partialSuffix+journal); ok {
			i := strings.LastIndexByte(r, '.') // drop os.CreateTemp's random part
			if i < 0 {
				return "", false
			}
			return r[:i], true
		}
	}
	return "", false
}

// identity is how markers name the database: its absolute path with
// symbolic links resolved where possible.
func (s *Snapshotter) identity() string {
	if p, err := filepath.EvalSymlinks(s.dbPath); err == nil {
		return p
	}
	return s.dbPath
}

// markOwned records that the snapshot came from this database.
func (s *Snapshotter) markOwned(snapshot string) error {
	return os.WriteFile(filepath.Join(s.dir, markerName(snapshot)), []byte(s.identity()+"\n"), 0o644)
}

// ownedBy reports whether the snapshot's marker names the database id.
func (s *Snapshotter) ownedBy(snapshot, id string) bool {
	f, err := os.Open(filepath.Join(s.dir, markerName(snapshot)))
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMarkerBytes))
	if err != nil {
		return false
	}
	return strings.TrimSuffix(string(data), "\n") == id
}
