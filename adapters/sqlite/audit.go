package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// AuditSink writes query_log, the audit log, into db: one row per tool
// call, group-committed on db's internal connections. The statement
// runner, view writer and memory store of the same db write the row of a
// change in the change's own transaction instead (see
// [StatementRunner.Seals]).
type AuditSink struct {
	db *Store
}

var _ ports.AuditSink = (*AuditSink)(nil)

// NewAuditSink returns the audit sink of db.
func NewAuditSink(db *Store) *AuditSink {
	return &AuditSink{db: db}
}

// seals reports whether sink is the audit sink of this database: its
// write services then store each change's audit row in the change's own
// transaction ([ports.AuditSealer]).
func (s *Store) seals(sink ports.AuditSink) bool {
	a, ok := sink.(*AuditSink)
	return ok && a.db == s
}

// auditInsert stores one query_log row. Write transactions run it on their
// own connection just before COMMIT; the group committer runs it for every
// other call.
const auditInsert = "INSERT INTO query_log (ts, session, tool, query, ok, rows, error, duration_ms, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"

// auditArgs are auditInsert's arguments: nil, string and int64 only, so
// they suit both database/sql and the driver's own Exec.
func auditArgs(e domain.AuditEntry) []any {
	args := []any{e.TS, e.Session, e.Tool, nil, int64(0), nil, nil, e.DurationMS, nil}
	if e.Query != nil {
		args[3] = *e.Query
	}
	if e.OK {
		args[4] = int64(1)
	}
	if e.Rows != nil {
		args[5] = *e.Rows
	}
	if e.Error != "" {
		args[6] = e.Error
	}
	if e.Detail != "" {
		args[8] = e.Detail
	}
	return args
}

// committer groups the query_log rows of overlapping calls into one
// transaction (group commit): a call enqueues its row and waits; the first
// caller finds nobody committing and commits the queue; rows that arrive
// meanwhile form the next batch, which a fresh goroutine commits as soon as
// this one is done. One BEGIN IMMEDIATE ... COMMIT per batch.
type committer struct {
	mu      sync.Mutex
	queue   []*pendingRow
	running bool

	// conn and its compiled statements, opened on first use; only the
	// goroutine committing touches them.
	conn *sql.Conn
	st   *auditStmts
}

// auditStmts are the committer's statements, compiled once on its driver
// connection and run there directly: no database/sql argument conversion
// per row, no parse of BEGIN and COMMIT per batch.
type auditStmts struct {
	insert, begin, commit, rollback driver.StmtExecContext
	closers                         []driver.Stmt
	args                            []driver.NamedValue // insert's, reused
}

// pendingRow is one call's row waiting for its batch's commit.
type pendingRow struct {
	e        domain.AuditEntry
	arrived  time.Time
	deadline time.Time // zero: none
	taken    bool      // a batch holds it; its outcome will arrive on done
	done     chan error
}

// Record stores e in query_log and returns once it is committed, grouped
// with the rows of overlapping calls. When ctx ends before the row's batch
// starts, the row is withdrawn and an error returned; once a batch holds
// it, Record waits for that batch (bounded by the batch's deadline).
func (sink *AuditSink) Record(ctx context.Context, e domain.AuditEntry) error {
	p := &pendingRow{e: e, arrived: time.Now(), done: make(chan error, 1)}
	p.deadline, _ = ctx.Deadline()
	a := &sink.db.audit
	a.mu.Lock()
	a.queue = append(a.queue, p)
	lead := !a.running
	a.running = true
	a.mu.Unlock()
	if lead {
		sink.db.commitBatch()
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
	}
	a.mu.Lock()
	if !p.taken {
		a.queue = slices.DeleteFunc(a.queue, func(q *pendingRow) bool { return q == p })
		a.mu.Unlock()
		return sink.db.auditTimeout(ctx)
	}
	a.mu.Unlock()
	return <-p.done
}

// commitBatch commits every queued row in one transaction, tells each
// caller the outcome, and hands the next batch to a new goroutine.
func (s *Store) commitBatch() {
	a := &s.audit
	a.mu.Lock()
	batch := a.queue
	a.queue = nil
	for _, p := range batch {
		p.taken = true
	}
	a.mu.Unlock()
	if len(batch) > 0 {
		err := s.writeBatch(batch)
		for _, p := range batch {
			p.done <- err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) > 0 {
		go s.commitBatch() // a.running stays true: the next batch is on its way
		return
	}
	a.running = false
}

// writeBatch inserts the rows in one write transaction. It waits for this
// process's other writes first, then for SQLite's write lock, at most
// until the latest deadline among the rows (or the busy timeout).
func (s *Store) writeBatch(batch []*pendingRow) error {
	ctx := context.Background()
	var latest time.Time
	budget := batch[0].arrived.Add(busyTimeout) // the earliest arrival: the queue is in order
	for _, p := range batch {
		if p.deadline.IsZero() {
			latest = time.Time{}
			break
		}
		if p.deadline.After(latest) {
			latest = p.deadline
		}
	}
	if !latest.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, latest)
		defer cancel()
	}
	release, err := s.lockWrites(ctx)
	if err != nil {
		return s.auditTimeout(ctx)
	}
	defer release()
	if s.closed {
		return domain.Errorf(domain.ErrUnavailable, "the server is shutting down; the audit row was not written")
	}
	a := &s.audit
	if a.conn == nil {
		if a.conn, err = s.internal.Conn(ctx); err != nil {
			return s.connError(ctx, err)
		}
	}
	connOK, err := s.insertBatch(ctx, batch, budget)
	// SQLite's heap is shared with agent statements (heap.go): a batch that
	// met its limit is retried briefly, since the statement that filled it
	// fails and frees it within milliseconds.
	for i := 0; i < ownWorkRetries && connOK && isNoMem(err) && ctx.Err() == nil; i++ {
		time.Sleep(ownWorkPause)
		connOK, err = s.insertBatch(ctx, batch, budget)
	}
	if !connOK {
		// The connection may be unusable; the next batch opens a fresh one.
		s.closeAuditConn()
	}
	return err
}

// insertBatch runs the batch's transaction on the committer's connection;
// connOK is false when the connection may be left in a bad state.
//
// The statements run without ctx: they are short, and the one long part,
// the wait for another program's lock, is bounded by foreignWait (an
// interrupt cannot end that wait anyway). ctx only words the errors.
func (s *Store) insertBatch(ctx context.Context, batch []*pendingRow, budget time.Time) (connOK bool, err error) {
	a := &s.audit
	deadline := time.Now().Add(foreignWait(ctx, budget))
	connOK = true
	rerr := a.conn.Raw(func(dc any) error {
		if a.st == nil {
			st, err := prepareAudit(dc)
			if err != nil {
				connOK = false
				return err
			}
			a.st = st
		}
		own, ownOK := s.ownBefore()
		if err := a.st.write(batch, deadline); err != nil {
			if !a.st.rolledBack(dc) {
				connOK = false
			}
			return err
		}
		s.ownAfter(own, ownOK)
		return nil
	})
	if rerr != nil {
		return connOK, s.auditError(ctx, rerr)
	}
	return true, nil
}

// prepareAudit compiles the committer's statements on dc and turns off
// SQLite's busy handler there: write waits for another program's lock in
// short steps instead (retryBusy).
func prepareAudit(dc any) (*auditStmts, error) {
	h, err := engine.Open(dc)
	if err != nil {
		return nil, err
	}
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, errors.New("the SQLite driver connection cannot prepare statements")
	}
	st := &auditStmts{args: make([]driver.NamedValue, 9)}
	for _, q := range []string{auditInsert, "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"} {
		ds, err := pc.PrepareContext(context.Background(), q)
		if err == nil {
			st.closers = append(st.closers, ds)
			if _, ok = ds.(driver.StmtExecContext); !ok {
				err = errors.New("the SQLite driver statement cannot execute with a context")
			}
		}
		if err != nil {
			st.close()
			return nil, err
		}
	}
	x := func(i int) driver.StmtExecContext { return st.closers[i].(driver.StmtExecContext) }
	st.insert, st.begin, st.commit, st.rollback = x(0), x(1), x(2), x(3)
	h.SetBusyTimeout(0)
	return st, nil
}

// write inserts the batch's rows: a lone row by itself (one statement
// instead of three), more in one BEGIN IMMEDIATE ... COMMIT.
func (st *auditStmts) write(batch []*pendingRow, deadline time.Time) error {
	if len(batch) == 1 {
		return retryBusy(deadline, func() error { return st.exec(st.insert, batch[0].e) })
	}
	if err := retryBusy(deadline, func() error { return st.exec(st.begin, domain.AuditEntry{}) }); err != nil {
		return err
	}
	for _, p := range batch {
		if err := st.exec(st.insert, p.e); err != nil {
			return err
		}
	}
	return st.exec(st.commit, domain.AuditEntry{})
}

// exec runs x: the insert with e's arguments, the others with none.
func (st *auditStmts) exec(x driver.StmtExecContext, e domain.AuditEntry) error {
	var args []driver.NamedValue
	if x == st.insert {
		for i, v := range auditArgs(e) {
			st.args[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		args = st.args
	}
	_, err := x.ExecContext(context.Background(), args)
	return err
}

// rolledBack ends a failed batch's transaction, if one is open on dc, and
// reports whether the connection is fit for the next batch.
func (st *auditStmts) rolledBack(dc any) bool {
	h, err := engine.Open(dc)
	if err != nil {
		return false
	}
	if h.Autocommit() {
		return true
	}
	return st.exec(st.rollback, domain.AuditEntry{}) == nil && h.Autocommit()
}

// close releases the statements.
func (st *auditStmts) close() {
	for _, ds := range st.closers {
		_ = ds.Close()
	}
	st.closers = nil
}

// retryBusy's steps. SQLite's own busy handler sleeps 1, 2, 5, 10 ms ...
// while another server's commit holds the lock for a tenth of that; 1 ms
// is the shortest sleep Go offers everywhere; no spinning, which would
// take the core the lock's holder needs (docs/decisions.md#audit-commit-path).
const (
	busyFastTries = 16
	busySleep     = time.Millisecond
	busySlowSleep = 5 * time.Millisecond
)

// retryBusy runs f until it does not fail on another program's write lock
// (SQLITE_BUSY), or until deadline, returning f's last error.
func retryBusy(deadline time.Time, f func() error) error {
	for i := 0; ; i++ {
		err := f()
		if err == nil || !isBusy(err) || !time.Now().Before(deadline) {
			return err
		}
		switch {
		case i == 0:
			runtime.Gosched()
		case i < busyFastTries:
			time.Sleep(min(busySleep, time.Until(deadline)))
		default:
			time.Sleep(min(busySlowSleep, time.Until(deadline)))
		}
	}
}

// auditError words a failed batch: the deadline passed, another program
// kept the write lock, or SQLite refused the insert.
func (s *Store) auditError(ctx context.Context, err error) error {
	switch {
	case isBusy(err): // this process's writes are held off (writeTurn): another program's lock
		return s.busyError()
	case ctx.Err() != nil:
		return s.auditTimeout(ctx)
	}
	return s.connError(ctx, err)
}

// closeAuditConn releases the committer's connection (on failure, and in
// Close).
// The connection goes back to the internal pool with its statements
// closed and SQLite's busy timeout restored.
func (s *Store) closeAuditConn() {
	a := &s.audit
	if a.conn == nil {
		return
	}
	if a.st != nil {
		_ = a.conn.Raw(func(dc any) error {
			a.st.close()
			h, err := engine.Open(dc)
			if err == nil {
				h.SetBusyTimeout(busyTimeout)
			}
			return err
		})
		a.st = nil
	}
	_ = a.conn.Close()
	a.conn = nil
}

// auditTimeout says why a row was not written before its call's deadline.
func (s *Store) auditTimeout(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errCancelled()
	}
	return domain.Errorf(domain.ErrTimeout, "the audit row could not be written to query_log before the call's deadline "+
		"(earlier rows and writes of this server were still being committed)%s", s.raiseTimeout())
}

// insertAuditOn inserts e on the connection of a write transaction (c's),
// with the policy suspended: it is the server's own statement.
func (c *call) insertAuditOn(ctx context.Context, dc any, e domain.AuditEntry) error {
	ex, ok := dc.(driver.ExecerContext)
	if !ok {
		return errors.New("the SQLite driver connection cannot execute statements")
	}
	args := auditArgs(e)
	named := make([]driver.NamedValue, len(args))
	for i, v := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	c.suspended = true
	defer func() { c.suspended = false }()
	_, err := ex.ExecContext(ctx, auditInsert, named)
	return err
}
