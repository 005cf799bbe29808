package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// MemoryStore keeps the agent's memory: the hash-chained events and the
// checkpoints in db's memory tables, written on its internal connections
// (no agent SQL runs here).
type MemoryStore struct {
	db *Store
}

var (
	_ ports.MemoryStore = (*MemoryStore)(nil)
	_ ports.AuditSealer = (*MemoryStore)(nil)
)

// NewMemoryStore returns the memory store of db.
func NewMemoryStore(db *Store) *MemoryStore {
	return &MemoryStore{db: db}
}

// Seals reports whether sink is the audit sink of the same database: the
// audit row of an event or checkpoint then commits in the same transaction.
func (m *MemoryStore) Seals(sink ports.AuditSink) bool { return m.db.seals(sink) }

// inWrite runs fn inside BEGIN IMMEDIATE on an internal connection: the
// write lock is taken before the head is read, so appends from several
// server processes queue up and form one linear chain. audit's row, when
// set, is inserted after fn, in the same transaction.
func (m *MemoryStore) inWrite(ctx context.Context, fn func(*sql.Conn) error, audit func() domain.AuditEntry) error {
	return retryNoMem(ctx, func() error { return m.inWriteOnce(ctx, fn, audit) })
}

func (m *MemoryStore) inWriteOnce(ctx context.Context, fn func(*sql.Conn) error, audit func() domain.AuditEntry) error {
	budget := time.Now().Add(busyTimeout)
	release, err := m.db.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer release()
	conn, err := m.db.internal.Conn(ctx)
	if err != nil {
		return m.db.connError(ctx, err)
	}
	defer conn.Close()
	if err := setBusy(conn, foreignWait(ctx, budget)); err != nil {
		return m.db.connError(ctx, err)
	}
	defer func() { _ = setBusy(conn, busyTimeout) }() // back to the pool default
	// Events and checkpoints are the memory the user relies on: their
	// commit is fsynced (FULL); the pooled connection goes back to NORMAL.
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
		return m.db.connError(ctx, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = NORMAL")
	own, ownOK := m.db.ownBefore()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return m.db.lockError(ctx, err)
	}
	err = fn(conn)
	if err == nil && m.db.opts.ChainKey != nil {
		err = signHead(ctx, conn, m.db.opts.ChainKey)
	}
	if err == nil && audit != nil {
		_, err = conn.ExecContext(ctx, auditInsert, auditArgs(audit())...)
	}
	if err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		if _, ok := err.(*domain.Error); ok {
			return err
		}
		return m.db.connError(ctx, err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return m.db.connError(ctx, err)
	}
	m.db.ownAfter(own, ownOK)
	return nil
}

// bind defers audit until what it describes has been stored in *v.
func bind[T any](audit ports.AuditFunc[T], v *T) func() domain.AuditEntry {
	if audit == nil {
		return nil
	}
	return func() domain.AuditEntry { return audit(*v) }
}

func head(ctx context.Context, conn *sql.Conn) (int64, string, error) {
	var id int64
	var hash string
	err := conn.QueryRowContext(ctx, "SELECT id, hash FROM memory_events ORDER BY id DESC LIMIT 1").Scan(&id, &hash)
	if err == sql.ErrNoRows {
		return 0, domain.Genesis, nil
	}
	return id, hash, err
}

// Append stores the next event durably (WAL, synchronous=FULL).
func (m *MemoryStore) Append(ctx context.Context, next func(int64, string) (domain.Event, error), audit ports.AuditFunc[domain.Event]) (domain.Event, error) {
	var e domain.Event
	err := m.inWrite(ctx, func(conn *sql.Conn) error {
		id, h, err := head(ctx, conn)
		if err != nil {
			return err
		}
		if e, err = next(id, h); err != nil {
			return err
		}
		return insertEvent(ctx, conn, e)
	}, bind(audit, &e))
	return e, err
}

// Checkpoint stores the next checkpoint against the current head.
func (m *MemoryStore) Checkpoint(ctx context.Context, next func(int64, string) (domain.Checkpoint, error), audit ports.AuditFunc[domain.Checkpoint]) (domain.Checkpoint, error) {
	var c domain.Checkpoint
	err := m.inWrite(ctx, func(conn *sql.Conn) error {
		id, h, err := head(ctx, conn)
		if err != nil {
			return err
		}
		if c, err = next(id, h); err != nil {
			return err
		}
		// The first checkpoint after one this server did not seal is
		// anchored to a marker, so its seal cannot be removed unseen
		// (domain/seal.go).
		mark, err := needsMarker(ctx, conn)
		if err != nil {
			return err
		}
		if mark {
			var marker domain.Event
			if marker, c, err = c.WithSealMarker(); err != nil {
				return err
			}
			if err := insertEvent(ctx, conn, marker); err != nil {
				return err
			}
		}
		res, err := conn.ExecContext(ctx,
			"INSERT INTO memory_checkpoints (ts, session, summary, last_event_id, head_hash) VALUES (?, ?, ?, ?, ?)",
			c.TS, c.Session, c.Summary, c.LastEventID, c.HeadHash)
		if err != nil {
			return err
		}
		if c.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		// The seal follows in the same transaction, so it is always the
		// event right after the checkpoint's head (domain/seal.go).
		seal, err := domain.NewSeal(c)
		if err != nil {
			return err
		}
		if err := insertEvent(ctx, conn, seal); err != nil {
			return err
		}
		return indexCheckpoint(ctx, conn, c) // memindex.go
	}, bind(audit, &c))
	return c, err
}

// insertEvent stores e as it is, and its row of search_memory's index.
func insertEvent(ctx context.Context, conn *sql.Conn, e domain.Event) error {
	_, err := conn.ExecContext(ctx,
		"INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
		e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash)
	if err != nil {
		return err
	}
	if err := recordProvenance(ctx, conn, e.ID); err != nil { // memretract.go
		return err
	}
	return indexEvent(ctx, conn, e) // memindex.go
}

// needsMarker reports whether the next checkpoint needs a marker first:
// the latest checkpoint is not followed by an event that claims to seal
// it (there is none, or the reference wrote it). Two lookups by key.
func needsMarker(ctx context.Context, conn *sql.Conn) (bool, error) {
	var id, last int64
	err := conn.QueryRowContext(ctx, "SELECT id, last_event_id FROM memory_checkpoints ORDER BY id DESC LIMIT 1").Scan(&id, &last)
	if err == sql.ErrNoRows {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	var e domain.Event
	err = conn.QueryRowContext(ctx, "SELECT kind, content FROM memory_events WHERE id = ?", last+1).Scan(&e.Kind, &e.Content)
	if err == sql.ErrNoRows {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return !domain.IsSealOf(e, id), nil
}

// Events walks every checkpoint (when checkpoint is set) and then every
// event in id order, in one read transaction, and counts the events. It
// steps SQLite directly (no database/sql row machinery): verify_chain reads
// every event on every call, so this is the hot loop of the memory tools.
func (m *MemoryStore) Events(ctx context.Context, checkpoint func(domain.Checkpoint), fn func(domain.Event) bool) (int64, error) {
	if err := m.db.checkImmutable(); err != nil {
		return 0, err
	}
	conn, err := m.db.readers.Conn(ctx)
	if err != nil {
		return 0, m.db.connError(ctx, err)
	}
	defer conn.Close()
	if checkpoint != nil {
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
			return 0, m.db.connError(ctx, err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	}
	var n int64
	err = conn.Raw(func(dc any) error {
		h, err := engine.Open(dc)
		if err != nil {
			return err
		}
		stop := armDeadline(ctx, h)
		defer stop()
		if checkpoint != nil {
			err := eachRow(h, "SELECT id, ts, session, summary, last_event_id, head_hash FROM memory_checkpoints ORDER BY id", func(st engine.Stmt) bool {
				checkpoint(domain.Checkpoint{ID: st.Int64(0), TS: st.Text(1), Session: st.Text(2), Summary: st.Text(3),
					LastEventID: st.Int64(4), HeadHash: st.Text(5)})
				return true
			})
			if err != nil {
				return err
			}
		}
		want := true
		return eachRow(h, "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events ORDER BY id", func(st engine.Stmt) bool {
			n++
			if want {
				want = fn(domain.Event{
					ID: st.Int64(0), TS: st.Text(1), Session: st.Text(2), Kind: st.Text(3),
					Content: st.Text(4), PrevHash: st.Text(5), Hash: st.Text(6),
				})
			}
			return true
		})
	})
	if err != nil {
		return n, m.db.translate(ctx, nil, err)
	}
	return n, nil
}

// eachRow steps q on h and calls row for each result row until it
// returns false.
func eachRow(h engine.Handle, q string, row func(engine.Stmt) bool) error {
	st, _, err := h.Prepare(q)
	if err != nil {
		return err
	}
	defer st.Finalize()
	for {
		more, err := st.Step()
		if err != nil || !more || !row(st) {
			return err
		}
	}
}

// Resume loads what get_resume_context shows.
func (m *MemoryStore) Resume(ctx context.Context, max int, exclude []string) (domain.ResumeState, error) {
	return m.resume(ctx, max, exclude, 0)
}

// resume is Resume; with verified > 0, events 1..verified are known to be
// there, one per id (verified.go), and only those after it are counted.
func (m *MemoryStore) resume(ctx context.Context, max int, exclude []string, verified int64) (domain.ResumeState, error) {
	if err := m.db.checkImmutable(); err != nil {
		return domain.ResumeState{}, err
	}
	var st domain.ResumeState
	// One read transaction, so an append by another process between these
	// queries cannot make the count and the rows disagree.
	conn, err := m.db.readers.Conn(ctx)
	if err != nil {
		return st, m.db.connError(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return st, m.db.connError(ctx, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	var cp domain.Checkpoint
	var sealNext bool
	err = conn.QueryRowContext(ctx,
		"SELECT id, ts, session, summary, last_event_id, head_hash FROM memory_checkpoints ORDER BY id DESC LIMIT 1").
		Scan(&cp.ID, &cp.TS, &cp.Session, &cp.Summary, &cp.LastEventID, &cp.HeadHash)
	switch {
	case err == sql.ErrNoRows:
	case err != nil:
		return st, m.db.connError(ctx, err)
	default:
		st.Checkpoint = &cp
		var h string
		err := conn.QueryRowContext(ctx, "SELECT hash FROM memory_events WHERE id = ?", cp.LastEventID).Scan(&h)
		if err != nil && err != sql.ErrNoRows {
			return st, m.db.connError(ctx, err)
		}
		st.Anchored = cp.Anchored(h, err == nil)
		if st.Coverage, sealNext, err = coverage(ctx, conn, cp); err != nil {
			return st, m.db.connError(ctx, err)
		}
	}
	since := int64(0)
	if st.Checkpoint != nil {
		since = st.Checkpoint.LastEventID
		if sealNext {
			// The event right after the head claims to seal the
			// checkpoint: it is part of the checkpoint, not an event
			// since, whether or not it matches.
			since++
		}
	}
	where := "id > ?"
	args := []any{since}
	sides, err := hasRetractions(ctx, conn) // memretract.go
	if err != nil {
		return st, m.db.connError(ctx, err)
	}
	if sides {
		where += hiddenSQL
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM memory_retractions WHERE event_id > ?", since).Scan(&st.Retracted); err != nil {
			return st, m.db.connError(ctx, err)
		}
	}
	if len(exclude) > 0 {
		where += " AND kind NOT IN (?" + strings.Repeat(", ?", len(exclude)-1) + ")"
		for _, k := range exclude {
			args = append(args, k)
		}
	}
	if err := countSince(ctx, conn, where, args, since, verified, len(exclude) == 0, sides, &st.Total); err != nil {
		return st, m.db.connError(ctx, err)
	}
	err = queryOn(ctx, conn, func(r *sql.Rows) error {
		var e domain.Event
		if err := r.Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash); err != nil {
			return err
		}
		st.Events = append(st.Events, e)
		return nil
	}, "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events WHERE "+where+" ORDER BY id DESC LIMIT ?", append(args, max)...)
	if err != nil {
		return st, m.db.connError(ctx, err)
	}
	for i, j := 0, len(st.Events)-1; i < j; i, j = i+1, j-1 {
		st.Events[i], st.Events[j] = st.Events[j], st.Events[i]
	}
	return st, nil
}

// coverage finds the event that seals cp (normally the one right after its
// head, found by its id; else any event claiming to seal it), and whether a
// marker or an earlier seal lies at or before its head, and lets the domain
// decide. next reports whether the event right after the head claims to
// seal cp.
func coverage(ctx context.Context, conn *sql.Conn, cp domain.Checkpoint) (cov domain.Coverage, next bool, err error) {
	const cols = "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events WHERE "
	var seal *domain.Event
	scan := func(r *sql.Rows) error {
		var e domain.Event
		if err := r.Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash); err != nil {
			return err
		}
		if seal == nil && domain.IsSealOf(e, cp.ID) {
			seal = &e
		}
		return nil
	}
	if err := queryOn(ctx, conn, scan, cols+"id = ?", cp.LastEventID+1); err != nil {
		return 0, false, err
	}
	if seal != nil {
		return cp.Coverage(seal, false), true, nil
	}
	prefix := domain.SealPrefix(cp.ID)
	if err := queryOn(ctx, conn, scan, cols+"kind = ? AND substr(content, 1, ?) = ? ORDER BY id LIMIT 1", domain.SealKind, len(prefix), prefix); err != nil {
		return 0, false, err
	}
	var ours bool
	if seal == nil {
		if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM memory_events WHERE kind = ? AND (content LIKE ? OR content = ?) AND id <= ?)",
			domain.SealKind, anySealPattern, domain.SealMarkerContent, cp.LastEventID).Scan(&ours); err != nil {
			return 0, false, err
		}
	}
	return cp.Coverage(seal, ours), false, nil
}

// anySealPattern is a LIKE pattern that finds the seals of all
// checkpoints ([domain.SealID], in SQL).
const anySealPattern = domain.SealLead + "%" + domain.SealMark + "%"

// queryOn runs a query on one connection and scans every row.
func queryOn(ctx context.Context, conn *sql.Conn, scan func(*sql.Rows) error, q string, args ...any) error {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Available reports whether the memory tables exist.
func (m *MemoryStore) Available(ctx context.Context) (bool, error) {
	var n int
	err := m.db.readers.QueryRowContext(ctx,
		"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('memory_events', 'memory_checkpoints')").Scan(&n)
	if err != nil {
		return false, m.db.connError(ctx, err)
	}
	return n == 2, nil
}
