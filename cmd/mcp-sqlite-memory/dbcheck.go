package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
)

// explainOpen turns a failure to open the database into what is wrong and
// what to do, naming the setting as the user gave it (flagName). SQLite
// itself only says "unable to open database file (14)". It looks at the
// path only after the open failed; when it finds nothing to say, err is
// returned as it is. Like every startup message it names files by their
// base name, never the folders above them. In read-only mode the SQLite
// adapter already explains each failure (sqlite.Store's explainReadOnly),
// so err is kept.
func explainOpen(cfg settings.Config, flagName string, err error) error {
	if cfg.ReadOnly {
		return err
	}
	if flagName == "" {
		flagName = "--db"
	}
	path := cfg.DBPath
	name := filepath.Base(path)
	info, statErr := os.Stat(path)
	switch {
	case statErr == nil && info.IsDir():
		return fmt.Errorf("%s names a folder (%s), not a database file: name a file inside it, such as %s", flagName, name, filepath.Join(name, "memory.db"))
	case statErr == nil:
		f, openErr := os.OpenFile(path, os.O_RDWR, 0)
		if openErr == nil {
			_ = f.Close()
			break
		}
		if errors.Is(openErr, fs.ErrPermission) {
			return fmt.Errorf("%s %s: permission denied: the server reads and writes the file; fix its permissions, or add --read-only to only read it", flagName, name)
		}
	case errors.Is(statErr, fs.ErrPermission):
		return fmt.Errorf("%s %s: permission denied on a folder of its path; fix the folder's permissions or choose another path", flagName, name)
	default:
		// Missing, or a file where a folder should be: find the nearest
		// part of the path that exists.
		dir := filepath.Dir(path)
		for {
			d, err := os.Stat(dir)
			if err == nil && !d.IsDir() {
				return fmt.Errorf("%s %s: its folder %s is a file, not a folder; choose another path", flagName, name, filepath.Base(dir))
			}
			if err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	// SQLite keeps its -wal and -shm files next to the database.
	dir := filepath.Dir(path)
	if probe, perr := os.CreateTemp(dir, ".mcp-sqlite-memory-probe-*"); perr != nil {
		if errors.Is(perr, fs.ErrPermission) {
			return fmt.Errorf("%s %s: permission denied in its folder, where SQLite keeps the -wal and -shm files; make the folder writable, or add --read-only", flagName, name)
		}
	} else {
		_ = probe.Close()
		_ = os.Remove(probe.Name())
	}
	return err
}
