package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// staleAfter is the age after which a leftover of this stem (the temporary
// copy of a process that died mid-snapshot, or the marker of a snapshot
// someone deleted) is garbage, whichever process it came from.
const staleAfter = time.Hour

// rotate deletes this database's snapshots beyond the newest s.keep, plus
// stale leftovers of its stem. It only ever deletes a snapshot whose marker
// names this database: snapshots of other databases, including ones with the
// same stem, and unmarked ones (e.g. written by the Python server) are left
// alone. Failures are logged; a snapshot that was written stays written.
func (s *Snapshotter) rotate() {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		s.log.Warn("snapshot rotation skipped: cannot list the folder", "dir", s.dir, "error", err)
		return
	}
	id := s.identity()
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		present[e.Name()] = true
	}
	var owned []string
	for _, e := range entries {
		name := e.Name()
		if domain.IsSnapshotOf(s.stem, name) {
			if s.ownedBy(name, id) {
				owned = append(owned, name)
			}
			continue
		}
		if snap, ok := markedSnapshot(name); ok && domain.IsSnapshotOf(s.stem, snap) {
			if !present[snap] && isStale(e) && s.ownedBy(snap, id) {
				s.remove(name)
			}
			continue
		}
		if snap, ok := partialSnapshot(name); ok && domain.IsSnapshotOf(s.stem, snap) && isStale(e) {
			s.remove(name)
		}
	}
	for _, name := range domain.SnapshotsToDelete(s.stem, owned, s.keep) {
		if s.remove(name) {
			s.remove(markerName(name))
		}
	}
}

// remove deletes one file of the folder and reports whether it is gone.
func (s *Snapshotter) remove(name string) bool {
	err := os.Remove(filepath.Join(s.dir, name))
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return true
	}
	s.log.Warn("snapshot rotation could not delete a file", "path", filepath.Join(s.dir, name), "error", err)
	return false
}

// isStale reports whether a folder entry was last modified over
// [staleAfter] ago.
func isStale(e fs.DirEntry) bool {
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > staleAfter
}
