package sqlite

import (
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/dbfile"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"

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
	msqlite "modernc.org/sqlite"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
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
	// tables, and no -wal or -shm file appears where none was (package
	// dbfile says how a WAL database is read). A missing file is an
	// error, never created.
	ReadOnly bool
	// skipProgramCheck turns off the second read-tier layer (the EXPLAIN
	// inspection), and skipAuthorizer installs no authorizer on agent
	// connections, the first layer. Only this package's tests set them
	// (export_layers_test.go), to prove that each layer holds on its own;
	// no program can build a store without both.
	skipProgramCheck, skipAuthorizer bool
	// NoStatementCache compiles every read-tier statement afresh instead of
	// keeping it per connection (stmtcache.go). Benchmarks use it to price
	// the cache, tests to show both paths answer alike.
	NoStatementCache bool
	// MaxCellChars is the cell cap of read_query's output ([domain.Limits]).
	// Read copies TEXT longer than this many code points only in part, as a
	// [domain.LongText], so a huge value is never copied whole just to be
	// cut. 0 reads every value whole.
	MaxCellChars int
	// ChainKey, when set, signs the chain's head in the transaction of
	// every event and checkpoint (package memory, docs/decisions.md#keyed-chain).
	ChainKey *domain.ChainKey
	// RepairServerObjects lets startup drop look-alikes of the server's
	// triggers, index and view, and extra triggers and indexes on its
	// tables, instead of refusing the file; bootstrap then creates the
	// server's own. Tables are never dropped.
	RepairServerObjects bool
	// ApprovalQueue creates the approval queue's tables (--confirm-fallback
	// queue; package approval).
	ApprovalQueue bool
	// NoAutoCheckpoint turns SQLite's automatic checkpoints off on every
	// connection (wal_autocheckpoint=0): a replicator (Litestream) controls
	// checkpoints on a replicated database, and no other connection may
	// checkpoint past what it has copied.
	NoAutoCheckpoint bool
	// ReadCacheBytes is the page cache of each agent read connection
	// (PRAGMA cache_size); 0 keeps SQLite's default of 2 MB. A query that
	// visits pages at random, such as a join through an index, reads each
	// page from the file once instead of once per visit when its working
	// set fits (BenchmarkStoreJoin). The caches are SQLite heap: under
	// LimitHeap they stop growing at the soft limit, whatever this says.
	// SQLite's sorter buffers up to the cache size before it spills, so
	// this also raises the memory peak of a large ORDER BY or DISTINCT.
	ReadCacheBytes int
}

// Store is one SQLite database file: it owns the connection pools and their
// lifecycle (Open, bootstrap, the check of the server's objects, Close)
// and what the pools share (the write turn, the reader statement caches,
// the audit group commit). It implements no port itself: each port has a
// service over the Store, in its own file: [StatementRunner] (runner.go),
// [CandidateSource] (candidates.go) and [AuditSink] (audit.go); the
// services that need only a connection, the write turn and the error
// wording (seam.go) are sub-packages: schema, recall, approval, undo,
// memory. Close it when done.
type Store struct {
	wording // the file's path and name, and how errors are worded (translate.go)
	opts    Options

	// Read-only mode only, decided before SQLite touches the file
	// (package dbfile): wal is set when its header asks for WAL, immutable
	// when it is opened with immutable=1; ro is what every call checks.
	wal, immutable bool
	ro             *dbfile.File

	internal *sql.DB // bootstrap, memory, audit, view DDL: no policy
	readers  *sql.DB // agent read tier and catalog: query_only
	writers  *sql.DB // agent write and destructive tiers

	// writeTurn is the in-process writer lock (writelock.go): a buffered
	// channel of one, held by the write transaction running now.
	writeTurn chan struct{}
	// stmts holds the reader connections' compiled statements.
	stmts stmtCaches
	// audit group-commits the query_log rows of calls that write nothing.
	audit committer
	// own is the run of this process's memory and audit commits since
	// the core's last verified mark (verified.go).
	own ownCommits
	// closed is set by Close, under the write turn.
	closed bool
	// repaired lists what --repair-server-objects dropped at startup.
	repaired []string
	// indexRebuilt records that startup rebuilt search_memory's index.
	indexRebuilt bool
}

// closeWait is how long Close waits for a write still running.
const closeWait = 2 * time.Second

// Open opens (and in read-write mode creates and bootstraps) the database at
// path. A file that is not SQLite gives an error naming the file. In
// read-only mode a missing file is an error matching [fs.ErrNotExist] and an
// unreadable one an error matching [fs.ErrPermission]; no error text holds
// the folder's path.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	s := &Store{wording: wording{queryTimeout: opts.QueryTimeout}, opts: opts, writeTurn: make(chan struct{}, 1)}
	if opts.ReadOnly {
		if err := s.openReadOnly(path); err != nil {
			return nil, err
		}
	} else {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", path, err)
		}
		s.path, s.name = abs, filepath.Base(abs)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, fmt.Errorf("create folder for %s: %w", s.name, err)
		}
	}
	var err error
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
	// Read-only: the file SQLite opened is still the one inspected.
	if err := s.checkImmutable(); err != nil {
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
// immutable=1 when package dbfile found that nobody has it open.
func (s *Store) dsn(queryOnly, internal bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	// In WAL mode NORMAL already makes every commit survive a crash of this
	// process; memory appends switch to FULL so that an acknowledged event
	// survives power loss too (InDurableWrite, seam.go).
	q.Add("_pragma", "synchronous(normal)")
	if s.opts.NoAutoCheckpoint && !s.opts.ReadOnly {
		q.Add("_pragma", "wal_autocheckpoint(0)")
	}
	if queryOnly || s.opts.ReadOnly {
		q.Add("_pragma", "query_only(1)")
	}
	if queryOnly && s.opts.ReadCacheBytes > 0 {
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", max(1, s.opts.ReadCacheBytes>>10)))
	}
	if !internal {
		q.Set("_defensive", "1")
	}
	if s.opts.ReadOnly {
		q.Set("mode", "ro")
		if s.immutable {
			q.Set("immutable", "1")
		} else {
			// SQLite opens -shm read-only: it shares a live writer's
			// index, and after a writer crashed it rebuilds the index in
			// memory instead of in the file (its support for read-only
			// media), so no file changes.
			q.Set("readonly_shm", "1")
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
	case errors.As(err, &se) && se.Code()&0xff == engine.CodeNotADB:
		return fmt.Errorf("%s is not a SQLite database (%s); point --db at a SQLite file, or at a new path to start an empty one", s.name, s.scrub(err.Error()))
	case s.opts.ReadOnly:
		return fmt.Errorf("cannot read %s in read-only mode: %s", s.name, s.explainReadOnly(err))
	case errors.As(err, &se) && se.Code()&0xff == engine.CodeCorrupt:
		return fmt.Errorf("%s is not a usable SQLite database: %s; the server left it as it is. %s", s.name, s.scrub(err.Error()), damagedHint(s.name))
	}
	return fmt.Errorf("%s is not a usable SQLite database: %s", s.name, s.scrub(err.Error()))
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
	case engine.CodeCantOpen, engine.CodeReadonlyDirectory, engine.CodeReadonlyCantInit:
		if s.wal {
			return fmt.Sprintf("it is a WAL database and its %[1]s-wal file exists (another program may be writing it), "+
				"so SQLite needs the %[1]s-shm file beside it and cannot open or create it (SQLite: %[2]s); "+
				"make the folder and any %[1]s-shm file writable for this user, or let the program that writes %[1]s close it "+
				"(which checkpoints and removes %[1]s-wal) and start again", s.name, msg)
		}
		return fmt.Sprintf("SQLite cannot open it (SQLite: %s); check that this user may read the file and search its folder", msg)
	case engine.CodeReadonlyRollback:
		return fmt.Sprintf("a program crashed while writing it and left %[1]s-journal, which must be rolled back before the file can be read (SQLite: %[2]s); "+
			"open it once read-write, for example with the sqlite3 shell, and start again", s.name, msg)
	}
	return msg
}

// openReadOnly resolves path and inspects the real file before SQLite
// sees it (package dbfile). No error text holds a folder.
func (s *Store) openReadOnly(path string) error {
	f, err := dbfile.Open(path)
	if err != nil {
		return err
	}
	s.ro, s.path, s.name, s.wal, s.immutable = f, f.Path, f.Name, f.WAL, f.Immutable
	return nil
}

// checkImmutable runs before every call: in read-only mode the file must
// still be the one opened, unchanged under immutable=1 ([dbfile.File.Check]).
func (s *Store) checkImmutable() error { return s.ro.Check() }

// Close closes every connection.
func (s *Store) Close() error {
	var errs []error
	// The audit committer's connection belongs to whoever holds the write
	// turn; a write still running gets a moment to finish.
	select {
	case s.writeTurn <- struct{}{}:
		s.closed = true
		s.closeAuditConn()
		<-s.writeTurn
	case <-time.After(closeWait):
	}
	for _, db := range []*sql.DB{s.writers, s.readers, s.internal} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	s.stmts.sweep()
	s.own.closeShm()
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

// ServerTables are the tables bootstrap adds to a database: the memory log,
// its checkpoints and the audit log (with their triggers, the audit index
// and the query_errors view).
func ServerTables() []string { return []string{"memory_events", "memory_checkpoints", "query_log"} }

// MissingTables returns those of names that the database has no table of,
// in the order given. It only reads, so a store opened read-only answers
// it without changing the file.
func (s *Store) MissingTables(ctx context.Context, names ...string) ([]string, error) {
	rows, err := s.readers.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table'")
	if err != nil {
		return nil, s.connError(ctx, err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, s.connError(ctx, err)
		}
		have[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, s.connError(ctx, err)
	}
	var missing []string
	for _, n := range names {
		if !have[strings.ToLower(n)] {
			missing = append(missing, n)
		}
	}
	return missing, nil
}
