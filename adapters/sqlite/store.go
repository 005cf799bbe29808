package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	// The driver registers itself as "sqlite" with database/sql. This is the
	// only package that opens SQLite, so the import lives here.
	_ "modernc.org/sqlite"
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
	// ReadOnly opens the file read-only at the engine level: nothing is ever
	// written, not even the server tables or WAL files.
	ReadOnly bool
	// SkipProgramCheck turns off the second read-tier layer (the EXPLAIN
	// inspection). Tests use it to prove each layer holds on its own.
	SkipProgramCheck bool
}

// Store is one SQLite database file. It implements the statement runner,
// catalog, memory and audit ports. Close it when done.
type Store struct {
	path string // absolute path, scrubbed from messages
	name string // file name shown instead
	opts Options

	internal *sql.DB // bootstrap, memory, audit, view DDL: no policy
	readers  *sql.DB // agent read tier and catalog: query_only
	writers  *sql.DB // agent write and destructive tiers
}

// Open opens (and in read-write mode creates and bootstraps) the database at
// path. A file that is not SQLite gives an error naming the file.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	s := &Store{path: abs, name: filepath.Base(abs), opts: opts}
	if opts.ReadOnly {
		if _, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("%s: %w (read-only mode never creates a database)", s.name, errors.Unwrap(err))
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
// file with mode=ro so SQLite itself refuses every write.
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
	if err := s.internal.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&v); err != nil {
		return fmt.Errorf("%s is not a usable SQLite database: %s", s.name, s.explainOpen(err))
	}
	return nil
}

// explainOpen words an open failure so the user knows what to do.
func (s *Store) explainOpen(err error) string {
	msg := s.scrub(err.Error())
	if s.opts.ReadOnly && (strings.Contains(msg, "unable to open") || strings.Contains(msg, "readonly")) {
		msg += " (in read-only mode SQLite still needs to create the -shm file of a WAL database: make its folder writable, or convert the file with PRAGMA journal_mode=DELETE)"
	}
	return msg
}

// Close closes every connection.
func (s *Store) Close() error {
	var errs []error
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
