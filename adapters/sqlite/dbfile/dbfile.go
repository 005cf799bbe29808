// Package dbfile inspects a database file for read-only mode before SQLite
// opens it: which file it really is (every link resolved), whether it is a
// WAL database, and whether SQLite may open it immutable=1; then, before
// every call, that it is still that file, unchanged; and it answers for
// SQLite where a file opened immutable=1 would make SQLite's answer false
// (PRAGMA journal_mode). It reads file headers and metadata only, never
// through SQLite.
package dbfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// walHeaderBytes is the size of a WAL file's header; a -wal file no longer
// than this holds no transaction.
const walHeaderBytes = 32

// File is what read-only mode saw of the database before SQLite opened
// it. Every call compares the file with it (see Check), by identity
// (device and inode, [os.SameFile]), never by path string.
type File struct {
	// Path is the real path (absolute, every link resolved), Name its
	// file name, shown instead of it.
	Path, Name string
	// WAL is set when the header asks for WAL, Immutable when SQLite is to
	// open the file with immutable=1 (see inspect).
	WAL, Immutable bool

	db os.FileInfo // the database file itself
	// immutable only: the -wal file found at start (empty, so ignored), or
	// nil when there was none.
	wal os.FileInfo
}

// realPath makes path absolute and resolves every symbolic link in it, the
// way the operating system does: "link/../x.db" is the x.db beside the
// link's target, not beside the link. SQLite resolves links the same way
// and keeps its -wal and -shm files beside the real file, so read-only mode
// inspects the real file and hands SQLite the resolved path: both look at
// the same files.
func realPath(path string) (string, error) {
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		// Not filepath.Join: it cleans "link/.." away by text.
		path = wd + string(filepath.Separator) + path
	}
	return filepath.EvalSymlinks(path)
}

// Open resolves path and inspects the real file before SQLite sees it (see
// inspect). A missing file is an error matching [fs.ErrNotExist] and an
// unreadable one an error matching [fs.ErrPermission]. No error text holds
// a folder.
func Open(path string) (*File, error) {
	s := &File{Name: filepath.Base(path)}
	real, err := realPath(path)
	if err != nil {
		return nil, s.fileError(err)
	}
	s.Path, s.Name = real, filepath.Base(real)
	if err := s.inspect(); err != nil {
		return nil, err
	}
	return s, nil
}

// fileError words a failure to find or read the database file without the
// folder: the cause (no such file, permission denied, ...) and the name.
func (s *File) fileError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w (read-only mode never creates a database)", s.Name, err)
	}
	return fmt.Errorf("cannot read %s: %w", s.Name, err)
}

// inspect runs before SQLite touches the file in read-only mode: it
// refuses a missing file (read-only mode never creates a database) and
// decides how to open it, or refuses when SQLite could read the data
// faithfully only by creating or following files it should not.
//
// A WAL database is read with the help of its -wal and -shm files, and
// SQLite creates them when they are missing. A read-only connection cannot
// remove them again (that needs a write lock on the database file), so they
// would stay behind. When there is no -wal file (or an empty one and no
// -shm), no connection has the database open and every committed
// transaction is in the main file, so it is opened with immutable=1: SQLite
// reads the main file alone, takes no locks and creates nothing. The price:
// a program that starts writing the file while this store is open is not
// seen, so every call first checks that the file and its -wal are as they
// were (Check) and refuses to read on otherwise; a checkpoint
// during a running read may still give that one read a wrong answer or
// "database disk image is malformed" (the file itself is never at risk).
// When a -wal file and a -shm file exist, another program may be writing
// right now, so the file is opened with locking as usual and SQLite shares
// both with it.
//
// Refused, each with one line saying what to do: a -wal file holding
// transactions but no -shm file beside it (a copy made without it: reading
// the transactions would create -shm, and skipping them would return old
// data); a -wal or -shm that is not a regular file (a link or a folder);
// and a WAL database with several hard links, since a program writing it
// under another name keeps its -wal file beside that name, where this
// session cannot find it.
func (s *File) inspect() error {
	// Stat before opening: opening a named pipe would block.
	fi, err := os.Stat(s.Path)
	if err != nil {
		return s.fileError(err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s); point --db at a SQLite database file", s.Name, kindOf(fi))
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return s.fileError(err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s changed while it was being opened; start again", s.Name)
	}
	s.db = fi
	// Byte 19 of the header, the file format read version, is 2 for WAL;
	// SQLite opens the -wal file on exactly that condition.
	var h [100]byte
	if n, _ := io.ReadFull(f, h[:]); n < len(h) || string(h[:16]) != "SQLite format 3\x00" || h[19] != 2 {
		return nil
	}
	s.WAL = true
	if n := linkCount(fi); n > 1 {
		return fmt.Errorf("cannot read %[1]s in read-only mode: it is a WAL database with %[2]d hard links, and a program writing it "+
			"under another name keeps its %[1]s-wal file beside that name, where this session cannot find it, so it could return old data; "+
			"copy the file (cp makes a file of its own) and point --db at the copy", s.Name, n)
	}
	wal, werr := os.Lstat(s.Path + "-wal")
	shm, serr := os.Lstat(s.Path + "-shm")
	switch {
	case errors.Is(werr, fs.ErrNotExist):
		s.Immutable = true
	case werr != nil:
		return fmt.Errorf("cannot read %s-wal: %w", s.Name, errors.Unwrap(werr))
	case !wal.Mode().IsRegular():
		return s.notRegular("-wal", wal)
	case errors.Is(serr, fs.ErrNotExist) && !holdsFrames(s.Path+"-wal", wal):
		// Left over, holding no transaction: a writer would have made -shm.
		s.Immutable, s.wal = true, wal
	case errors.Is(serr, fs.ErrNotExist):
		return fmt.Errorf("cannot read %[1]s in read-only mode: its %[1]s-wal file holds transactions not yet in %[1]s, but there is no %[1]s-shm "+
			"beside it (a copy made without it?), and SQLite would have to create %[1]s-shm to read them, which read-only mode never does; "+
			"open the database once read-write (for example sqlite3 %[1]s \"PRAGMA wal_checkpoint(TRUNCATE)\"), "+
			"or copy %[1]s and %[1]s-wal to another folder, open the copy read-write once and point --db at it", s.Name)
	case serr != nil:
		return fmt.Errorf("cannot read %s-shm: %w", s.Name, errors.Unwrap(serr))
	case !shm.Mode().IsRegular():
		return s.notRegular("-shm", shm)
	}
	return nil
}

// holdsFrames reports whether the -wal file may hold transactions: it is
// longer than its header and the header starts with WAL's magic number
// (SQLite ignores a WAL file without it).
func holdsFrames(path string, fi os.FileInfo) bool {
	if fi.Size() <= walHeaderBytes {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return true // let the refusal say so; never guess "empty"
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return true
	}
	return magic == [4]byte{0x37, 0x7f, 0x06, 0x82} || magic == [4]byte{0x37, 0x7f, 0x06, 0x83}
}

// notRegular refuses a -wal or -shm that is a link, a folder or a device:
// SQLite would follow it, fail on it, or write through it.
func (s *File) notRegular(suffix string, fi os.FileInfo) error {
	return fmt.Errorf("cannot read %[1]s in read-only mode: %[1]s%[2]s is not a regular file (%[3]s), and read-only mode reads a WAL database "+
		"only with plain -wal and -shm files beside it; move %[1]s%[2]s away if no program is writing %[1]s, or copy the database and point --db at the copy",
		s.Name, suffix, kindOf(fi))
}

// kindOf names what a file that is not a regular file is.
func kindOf(fi os.FileInfo) string {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// Check runs before every call in read-only mode (it is nil on a nil
// File). The database
// must still be the file this session opened: a file renamed over it or a
// link pointing elsewhere would have pooled connections read two different
// files. When it was opened with immutable=1 (see inspect) SQLite
// ignores other writers, so the file must also be unchanged (same size and
// modification time) and its -wal as it was: otherwise answers could mix
// old and new pages, and the session refuses to read on.
func (s *File) Check() error {
	if s == nil || s.db == nil {
		return nil
	}
	fi, err := os.Stat(s.Path)
	if err != nil || !os.SameFile(fi, s.db) {
		return domain.Errorf(domain.ErrUnavailable, "%s was replaced, moved or deleted after this read-only session opened it; restart the server to read the file now at its place", s.Name)
	}
	if !s.Immutable {
		return nil
	}
	wal, err := os.Lstat(s.Path + "-wal")
	walSame := errors.Is(err, fs.ErrNotExist) && s.wal == nil ||
		err == nil && s.wal != nil && os.SameFile(wal, s.wal) && wal.Size() == s.wal.Size()
	if !walSame || fi.Size() != s.db.Size() || !fi.ModTime().Equal(s.db.ModTime()) {
		return domain.Errorf(domain.ErrUnavailable, "another program started writing to %s after this read-only session opened it; restart the server to read it consistently", s.Name)
	}
	return nil
}

// CheckAfterRead runs when a read has stepped through its rows, before
// they are sent. Only a file opened with immutable=1 can change under a
// running read (with locking SQLite keeps the read consistent), so it
// costs nothing otherwise.
func (s *File) CheckAfterRead() error {
	if s == nil || !s.Immutable {
		return nil
	}
	return s.Check()
}

// TruthfulSQL answers the plain "PRAGMA journal_mode" (or
// "PRAGMA main.journal_mode") itself when SQLite's answer would be false
// (see JournalModeNote): it becomes SELECT 'wal' AS journal_mode, which
// runs through every layer like any read. Every other spelling reaches
// SQLite and is refused with the truth.
func (s *File) TruthfulSQL(sql string) string {
	if s.JournalModeNote() == "" {
		return sql
	}
	f := strings.Fields(strings.TrimRight(sql, "; \t\r\n"))
	if len(f) == 2 && strings.EqualFold(f[0], "pragma") && (strings.EqualFold(f[1], "journal_mode") || strings.EqualFold(f[1], "main.journal_mode")) {
		return "SELECT 'wal' AS journal_mode"
	}
	return sql
}

// JournalModeNote is the refusal of PRAGMA journal_mode (and
// pragma_journal_mode) when a WAL database is opened with immutable=1:
// SQLite then reads it like a rollback-journal file and would answer
// "delete", which is false. The refusal says the truth instead. It is "" in
// every other case (and on a nil File), where SQLite's own answer is true.
func (s *File) JournalModeNote() string {
	if s == nil || !s.Immutable || !s.WAL {
		return ""
	}
	return fmt.Sprintf("PRAGMA journal_mode is not answered in this read-only session: %s is a WAL database (journal_mode wal), "+
		"read here without its -wal and -shm files so that none is created, and SQLite would wrongly answer delete", s.Name)
}
