package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// explainOpen turns a failure to open the database into what is wrong and
// what to do, naming the setting as the user gave it (flagName). SQLite
// itself only says "unable to open database file (14)". It looks at the
// path only after the open failed; when it finds nothing to say, err is
// returned as it is.
func explainOpen(cfg Config, flagName string, err error) error {
	if flagName == "" {
		flagName = "--db"
	}
	path := cfg.DBPath
	info, statErr := os.Stat(path)
	switch {
	case statErr == nil && info.IsDir():
		return fmt.Errorf("%s %s is a folder, not a database file: name a file inside it, such as %s", flagName, path, filepath.Join(path, "memory.db"))
	case statErr == nil:
		mode := os.O_RDWR
		if cfg.ReadOnly {
			mode = os.O_RDONLY
		}
		f, openErr := os.OpenFile(path, mode, 0)
		if openErr == nil {
			_ = f.Close()
			break
		}
		if errors.Is(openErr, fs.ErrPermission) {
			if cfg.ReadOnly {
				return fmt.Errorf("%s %s: permission denied: this user cannot read the file; fix its permissions", flagName, path)
			}
			return fmt.Errorf("%s %s: permission denied: the server reads and writes the file; fix its permissions, or add --read-only to only read it", flagName, path)
		}
	case errors.Is(statErr, fs.ErrPermission):
		return fmt.Errorf("%s %s: permission denied on a folder of the path; fix the folder's permissions or choose another path", flagName, path)
	default:
		// Missing, or a file where a folder should be: find the nearest
		// part of the path that exists.
		dir := filepath.Dir(path)
		for {
			d, err := os.Stat(dir)
			if err == nil && !d.IsDir() {
				return fmt.Errorf("%s %s: %s is a file, not a folder; choose another path", flagName, path, dir)
			}
			if err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
		if cfg.ReadOnly && errors.Is(statErr, fs.ErrNotExist) {
			return fmt.Errorf("%s %s: the folder %s does not exist, and read-only mode never creates anything; check the path", flagName, path, filepath.Dir(path))
		}
	}
	if !cfg.ReadOnly {
		// SQLite keeps its -wal and -shm files next to the database.
		dir := filepath.Dir(path)
		if probe, perr := os.CreateTemp(dir, ".mcp-sqlite-memory-probe-*"); perr != nil {
			if errors.Is(perr, fs.ErrPermission) {
				return fmt.Errorf("%s %s: permission denied in the folder %s, where SQLite keeps the -wal and -shm files; make the folder writable, or add --read-only", flagName, path, dir)
			}
		} else {
			_ = probe.Close()
			_ = os.Remove(probe.Name())
		}
	}
	return err
}
