package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SQLiteCompanions are the suffixes of the files SQLite keeps beside a
// database: writing any of them writes the database.
var SQLiteCompanions = []string{"", "-wal", "-shm", "-journal"}

// CheckAuditPath refuses an --audit-db that is the read-only database, or
// one of its -wal, -shm and -journal files, or whose own companion files
// would be one of those, however it is spelled: through a symbolic link (of
// the file or of a folder), a hard link, "..", or another letter case.
// Files are compared by identity (device and inode, [os.SameFile]) where
// they exist, and by their resolved path otherwise. db is the database's
// resolved path ([sqlite.Store.Path] in read-only mode).
//
// It returns the path to open the audit database at: audit with every link
// resolved, so that the file is created where the system would put it.
//
// It also refuses an audit file inside one of snapDirs, the database's
// snapshot folders: what a read-write session keeps there is its own, and
// its rotation deletes files there.
func CheckAuditPath(db string, snapDirs []string, audit string) (string, error) {
	real, err := ResolveMissing(audit)
	if err != nil {
		return audit, nil // sqlite.Open reports it, naming --audit-db
	}
	for _, dir := range snapDirs {
		d, err := ResolveMissing(dir)
		if err == nil && len(real) > len(d) && strings.EqualFold(real[:len(d)], d) && os.IsPathSeparator(real[len(d)]) {
			return "", Usagef("--audit-db must not be inside the database's snapshot folder %s: it belongs to the snapshots "+
				"(a read-write session rotates files there); choose another folder", filepath.Base(d))
		}
	}
	for _, a := range SQLiteCompanions {
		for _, d := range SQLiteCompanions {
			if a != "" && d != "" {
				continue // a file's companion is never another's
			}
			if SameFile(real+a, db+d) {
				return "", Usagef("--audit-db must be another file than --db and its -wal, -shm and -journal files "+
					"(it names %s%s here, through a link or another spelling): read-only mode never writes to the database", filepath.Base(db), d)
			}
		}
	}
	return real, nil
}

// SameFile reports whether a and b are one file: the same device and inode
// when both exist, else the same resolved path, letter case ignored (to be
// safe on file systems that ignore it).
func SameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	return strings.EqualFold(a, b)
}

// ResolveMissing resolves every symbolic link of path as the system would
// when the file is created: the deepest folder that exists is resolved and
// the rest, which does not exist yet, is appended.
func ResolveMissing(path string) (string, error) {
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		path = wd + string(filepath.Separator) + path
	}
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(path)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		// Split off the last element by hand: filepath.Dir would clean
		// "link/.." away by text.
		i := strings.LastIndexAny(path, `/\`)
		if !errors.Is(err, fs.ErrNotExist) || i <= 0 || !strings.ContainsAny(path[:i], `/\`) {
			return "", err
		}
		rest = filepath.Join(path[i+1:], rest)
		path = path[:i]
	}
}
