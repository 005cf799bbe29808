// Package memory is the agent's memory in the SQLite file: the
// hash-chained events and the checkpoints, search_memory's index kept up
// at every append, retractions and provenance, the chain's head
// signatures, the rows of an export and an import, and the reads that let
// the core verify only what changed. It writes on the Store's internal
// connections through the seam of package sqlite (no agent SQL runs
// here); the Store creates and checks the memory tables when it opens
// the file (docs/decisions.md#the-sqlite-adapters-packages).
package memory

import (
	"context"
	"database/sql"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Store keeps the agent's memory: the hash-chained events and the
// checkpoints in db's memory tables, written on its internal connections
// (no agent SQL runs here).
type Store struct {
	db *sqlite.Store
}

var (
	_ ports.MemoryStore = (*Store)(nil)
	_ ports.AuditSealer = (*Store)(nil)
)

// New returns the memory store of db.
func New(db *sqlite.Store) *Store {
	return &Store{db: db}
}

// Seals reports whether sink is the audit sink of the same database: the
// audit row of an event or checkpoint then commits in the same transaction.
func (m *Store) Seals(sink ports.AuditSink) bool { return m.db.Seals(sink) }

// inWrite runs fn inside BEGIN IMMEDIATE on an internal connection
// (sqlite.Store.InDurableWrite): the write lock is taken before the head
// is read, so appends from several server processes queue up and form one
// linear chain. audit's row, when set, is inserted after fn, in the same
// transaction.
func (m *Store) inWrite(ctx context.Context, fn func(*sql.Conn) error, audit func() domain.AuditEntry) error {
	return sqlite.RetryNoMem(ctx, func() error { return m.inWriteOnce(ctx, fn, audit) })
}

// inWriteOnce is inWrite without the retry: after fn, the head's
// signature (with a chain key) and the audit row join its transaction.
func (m *Store) inWriteOnce(ctx context.Context, fn func(*sql.Conn) error, audit func() domain.AuditEntry) error {
	key := m.db.ChainKey()
	return m.db.InDurableWrite(ctx, func(conn *sql.Conn) error {
		err := fn(conn)
		if err == nil && key != nil {
			err = signHead(ctx, conn, key)
		}
		if err == nil && audit != nil {
			err = sqlite.InsertAudit(ctx, conn, audit())
		}
		return err
	})
}

// bind defers audit until what it describes has been stored in *v.
func bind[T any](audit ports.AuditFunc[T], v *T) func() domain.AuditEntry {
	if audit == nil {
		return nil
	}
	return func() domain.AuditEntry { return audit(*v) }
}

// Append stores the next event durably (WAL, synchronous=FULL).
func (m *Store) Append(ctx context.Context, next func(int64, string) (domain.Event, error), audit ports.AuditFunc[domain.Event]) (domain.Event, error) {
	var e domain.Event
	err := m.inWrite(ctx, func(conn *sql.Conn) error {
		id, h, err := sqlite.Head(ctx, conn)
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
func (m *Store) Checkpoint(ctx context.Context, next func(int64, string) (domain.Checkpoint, error), audit ports.AuditFunc[domain.Checkpoint]) (domain.Checkpoint, error) {
	var c domain.Checkpoint
	err := m.inWrite(ctx, func(conn *sql.Conn) error {
		id, h, err := sqlite.Head(ctx, conn)
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
		return indexCheckpoint(ctx, conn, c) // index.go
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
	if err := recordProvenance(ctx, conn, e.ID); err != nil { // retract.go
		return err
	}
	return indexEvent(ctx, conn, e) // index.go
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
func (m *Store) Events(ctx context.Context, checkpoint func(domain.Checkpoint), fn func(domain.Event) bool) (int64, error) {
	if err := m.db.CheckFile(); err != nil {
		return 0, err
	}
	conn, err := m.db.Readers().Conn(ctx)
	if err != nil {
		return 0, m.db.ConnError(ctx, err)
	}
	defer conn.Close()
	if checkpoint != nil {
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
			return 0, m.db.ConnError(ctx, err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	}
	var n int64
	err = conn.Raw(func(dc any) error {
		h, err := engine.Open(dc)
		if err != nil {
			return err
		}
		stop := sqlite.ArmDeadline(ctx, h)
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
		return n, m.db.EngineError(ctx, err)
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
func (m *Store) Resume(ctx context.Context, max int, exclude []string) (domain.ResumeState, error) {
	return m.resume(ctx, max, exclude, 0)
}

// resume is Resume; with verified > 0, events 1..verified are known to be
// there, one per id (verified.go), and only those after it are counted.
func (m *Store) resume(ctx context.Context, max int, exclude []string, verified int64) (domain.ResumeState, error) {
	if err := m.db.CheckFile(); err != nil {
		return domain.ResumeState{}, err
	}
	var st domain.ResumeState
	// One read transaction, so an append by another process between these
	// queries cannot make the count and the rows disagree.
	conn, err := m.db.Readers().Conn(ctx)
	if err != nil {
		return st, m.db.ConnError(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return st, m.db.ConnError(ctx, err)
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
		return st, m.db.ConnError(ctx, err)
	default:
		st.Checkpoint = &cp
		var h string
		err := conn.QueryRowContext(ctx, "SELECT hash FROM memory_events WHERE id = ?", cp.LastEventID).Scan(&h)
		if err != nil && err != sql.ErrNoRows {
			return st, m.db.ConnError(ctx, err)
		}
		st.Anchored = cp.Anchored(h, err == nil)
		if st.Coverage, sealNext, err = coverage(ctx, conn, cp); err != nil {
			return st, m.db.ConnError(ctx, err)
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
	sides, err := sqlite.HasRetractions(ctx, conn)
	if err != nil {
		return st, m.db.ConnError(ctx, err)
	}
	if sides {
		where += hiddenSQL
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM memory_retractions WHERE event_id > ?", since).Scan(&st.Retracted); err != nil {
			return st, m.db.ConnError(ctx, err)
		}
	}
	if len(exclude) > 0 {
		where += " AND kind NOT IN (?" + strings.Repeat(", ?", len(exclude)-1) + ")"
		for _, k := range exclude {
			args = append(args, k)
		}
	}
	if err := countSince(ctx, conn, where, args, since, verified, len(exclude) == 0, sides, &st.Total); err != nil {
		return st, m.db.ConnError(ctx, err)
	}
	err = sqlite.QueryOn(ctx, conn, func(r *sql.Rows) error {
		var e domain.Event
		if err := r.Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash); err != nil {
			return err
		}
		st.Events = append(st.Events, e)
		return nil
	}, "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events WHERE "+where+" ORDER BY id DESC LIMIT ?", append(args, max)...)
	if err != nil {
		return st, m.db.ConnError(ctx, err)
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
	if err := sqlite.QueryOn(ctx, conn, scan, cols+"id = ?", cp.LastEventID+1); err != nil {
		return 0, false, err
	}
	if seal != nil {
		return cp.Coverage(seal, false), true, nil
	}
	prefix := domain.SealPrefix(cp.ID)
	if err := sqlite.QueryOn(ctx, conn, scan, cols+"kind = ? AND substr(content, 1, ?) = ? ORDER BY id LIMIT 1", domain.SealKind, len(prefix), prefix); err != nil {
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

// Available reports whether the memory tables exist.
func (m *Store) Available(ctx context.Context) (bool, error) {
	var n int
	err := m.db.Readers().QueryRowContext(ctx,
		"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('memory_events', 'memory_checkpoints')").Scan(&n)
	if err != nil {
		return false, m.db.ConnError(ctx, err)
	}
	return n == 2, nil
}
