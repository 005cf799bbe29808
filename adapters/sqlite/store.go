package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	// The driver registers itself as "sqlite" with database/sql. This is the
	// only package that opens SQLite, so the import lives here.
	msqlite "modernc.org/sqlite"
	lib "modernc.org/sqlite/lib"
)

// busyTimeout is how long a connection waits for another writer (another
// server process on the same file) before SQLite reports "database is
// locked". Write transactions are short, so this is ample.
const busyTimeout = 5 * time.Second

// Options configure a [Store]. The zero value is usable.
type Options struct {
	// QueryTimeout is only used to word timeout errors; the deadline itself
	// comes from each call's context.
	QueryTimeout time.Duration
	// ReadOnly opens the file read-only at the engine level (mode=ro, every
	// connection query_only): nothing is ever written, not even the server
	// tables, and no -wal or -shm file appears where none was (see
	// inspectReadOnly for how a WAL database is read). A missing file is an
	// error, never created.
	ReadOnly bool
	// SkipProgramCheck turns off the second read-tier layer (the EXPLAIN
	// inspection). Tests use it to prove each layer holds on its own.
	SkipProgramCheck bool
	// SkipAuthorizer installs no authorizer on agent connections, which
	// turns off the first layer. It is for tests only, which use it to prove
	// that the layers behind the authorizer (the EXPLAIN inspection,
	// query_only, mode=ro) hold on their own; the server never sets it.
	SkipAuthorizer bool
	// MaxCellChars is the cell cap of read_query's output ([domain.Limits]).
	// Read copies TEXT longer than this many code points only in part, as a
	// [domain.LongText], so a huge value is never copied whole just to be
	// cut. 0 reads every value whole.
	MaxCellChars int
	// RepairServerObjects lets startup drop look-alikes of the server's
	// triggers, index and view, and extra triggers and indexes on its
	// tables, instead of refusing the file; bootstrap then creates the
	// server's own. Tables are never dropped.
	RepairServerObjects bool
}

// Store is one SQLite database file. It implements the statement runner,
// catalog, memory and audit ports. Close it when done.
type Store struct {
	path string // absolute path, scrubbed from messages
	name string // file name shown instead
	opts Options

	// Read-only mode only, decided before SQLite touches the file (see
	// inspectReadOnly): wal is set when its header asks for WAL, immutable
	// when it is opened with immutable=1.
	wal, immutable bool

	internal *sql.DB // bootstrap, memory, audit, view DDL: no policy

	// The audit insert runs after every call; it is compiled once.
	auditOnce sync.Once
	auditStmt *sql.Stmt
	auditErr  error
	readers   *sql.DB // agent read tier and catalog: query_only
	writers   *sql.DB // agent write and destructive tiers
	// repaired lists what --repair-server-objects dropped at startup.
	repaired []string
}

// Open opens (and in read-write mode creates and bootstraps) the database at
// path. A file that is not SQLite gives an error naming the file. In
// read-only mode a missing file is an error matching [fs.ErrNotExist] and an
// unreadable one an error matching [fs.ErrPermission]; no error text holds
// the folder's path.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	s := &Store{path: abs, name: filepath.Base(abs), opts: opts}
	if opts.ReadOnly {
		if err := s.inspectReadOnly(); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("create folder for %s: %w", s.name, err)
	}
	if s.internal, err = s.open(false, true); err != nil {
		return nil, err
	}
	if s.readers, err = s.open(true, false); err != nil {
		s.Close()
		return nil, err
	}
	if s.writers, err = s.open(false, false); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.check(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if !opts.ReadOnly {
		if err := s.bootstrap(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// dsn builds a modernc.org/sqlite data source name. Agent connections run in
// defensive mode; read connections are query_only; read-only mode opens the
// file with mode=ro so SQLite itself refuses every write, and with
// immutable=1 when inspectReadOnly found that nobody has it open.
func (s *Store) dsn(queryOnly, internal bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	// In WAL mode NORMAL already makes every commit survive a crash of this
	// process; memory appends switch to FULL so that an acknowledged event
	// survives power loss too (see memory.go).
	q.Add("_pragma", "synchronous(normal)")
	if queryOnly || s.opts.ReadOnly {
		q.Add("_pragma", "query_only(1)")
	}
	if !internal {
		q.Set("_defensive", "1")
	}
	if s.opts.ReadOnly {
		q.Set("mode", "ro")
		if s.immutable {
			q.Set("immutable", "1")
		}
	}
	u := url.URL{Scheme: "file", Path: s.path, RawQuery: q.Encode()}
	return u.String()
}

func (s *Store) open(queryOnly, internal bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite", s.dsn(queryOnly, internal))
	if err != nil {
		return nil, fmt.Errorf("open %s: %v", s.name, s.scrub(err.Error()))
	}
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	return db, nil
}

// check fails clearly when the file is not a SQLite database or cannot be
// opened.
func (s *Store) check(ctx context.Context) error {
	var v int64
	err := s.internal.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&v)
	var se *msqlite.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.Code()&0xff == lib.SQLITE_NOTADB:
		return fmt.Errorf("%s is not a SQLite database (%s); point --db at a SQLite file, or at a new path to start an empty one", s.name, s.scrub(err.Error()))
	case s.opts.ReadOnly:
		return fmt.Errorf("cannot read %s in read-only mode: %s", s.name, s.explainReadOnly(err))
	case errors.As(err, &se) && se.Code()&0xff == lib.SQLITE_CORRUPT:
		return fmt.Errorf("%s is not a usable SQLite database: %s; the server left it as it is. %s", s.name, s.scrub(err.Error()), damagedHint(s.name))
	}
	return fmt.Errorf("%s is not a usable SQLite database: %s", s.name, s.scrub(err.Error()))
}

// inspectReadOnly runs before SQLite touches the file in read-only mode: it
// refuses a missing file (read-only mode never creates a database) and
// decides how to open it.
//
// A WAL database is read with the help of its -wal and -shm files, and
// SQLite creates them when they are missing. A read-only connection cannot
// remove them again (that needs a write lock on the database file), so they
// would stay behind. When there is no -wal file, no connection has the
// database open and every committed transaction is in the main file, so it
// is opened with immutable=1: SQLite reads the main file alone, takes no
// locks and creates nothing. The price: a program that starts writing the
// file while this store is open is not seen, and its checkpoints may change
// pages under a running read (a wrong answer or "database disk image is
// malformed" for that read; the file itself is never at risk). Reopening
// the store reads it consistently again. When a -wal file exists, another
// program may be writing right now, so the file is opened with locking as
// usual and SQLite shares the existing -wal and -shm files with it.
func (s *Store) inspectReadOnly() error {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w (read-only mode never creates a database)", s.name, errors.Unwrap(err))
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", s.name, errors.Unwrap(err))
	}
	defer f.Close()
	// Byte 19 of the header, the file format read version, is 2 for WAL;
	// SQLite opens the -wal file on exactly that condition.
	var h [100]byte
	if n, _ := io.ReadFull(f, h[:]); n == len(h) && string(h[:16]) == "SQLite format 3\x00" && h[19] == 2 {
		s.wal = true
		_, err := os.Lstat(s.path + "-wal")
		s.immutable = errors.Is(err, fs.ErrNotExist)
	}
	return nil
}

// explainReadOnly words a failure to open the file read-only so the user
// knows what to do. SQLite's own message is kept in parentheses.
func (s *Store) explainReadOnly(err error) string {
	msg := s.scrub(err.Error())
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return msg
	}
	switch se.Code() {
	case lib.SQLITE_CANTOPEN, lib.SQLITE_READONLY_DIRECTORY, lib.SQLITE_READONLY_CANTINIT:
		if s.wal {
			return fmt.Sprintf("it is a WAL database and its %[1]s-wal file exists (another program may be writing it), "+
				"so SQLite needs the %[1]s-shm file beside it and cannot open or create it (SQLite: %[2]s); "+
				"make the folder and any %[1]s-shm file writable for this user, or let the program that writes %[1]s close it "+
				"(which checkpoints and removes %[1]s-wal) and start again", s.name, msg)
		}
		return fmt.Sprintf("SQLite cannot open it (SQLite: %s); check that this user may read the file and search its folder", msg)
	case lib.SQLITE_READONLY_ROLLBACK:
		return fmt.Sprintf("a program crashed while writing it and left %[1]s-journal, which must be rolled back before the file can be read (SQLite: %[2]s); "+
			"open it once read-write, for example with the sqlite3 shell, and start again", s.name, msg)
	}
	return msg
}

// Close closes every connection.
func (s *Store) Close() error {
	var errs []error
	if s.auditStmt != nil {
		errs = append(errs, s.auditStmt.Close())
	}
	for _, db := range []*sql.DB{s.writers, s.readers, s.internal} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

// Path returns the database's absolute path.
func (s *Store) Path() string { return s.path }

// JournalMode reports the journal mode, "wal" once bootstrapped.
func (s *Store) JournalMode(ctx context.Context) (string, error) {
	var m string
	err := s.internal.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&m)
	return m, err
}
