package memory

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// The verified-chain reads: the core remembers the chain it verified and
// asks whether anything but this process's own memory and audit writes
// committed since (the Store keeps that run, adapters/sqlite/verified.go;
// docs/decisions.md#resume-verifies-what-changed).

var _ ports.MemoryTail = (*Store)(nil)

// Mark starts a new run and returns its mark; ok is false when the
// counter cannot be read (a read-only or immutable file without a shared
// wal-index): every walk is then a whole one.
func (m *Store) Mark() (ports.MemoryMark, bool) { return m.db.OwnMark() }

// EventsAfter walks the events after afterID (and that event itself), in
// one read transaction, when only this process's own memory and audit
// commits reached the file since mark. ok false
// means something else committed (or nothing can tell): nothing is
// walked, and the caller walks the whole chain. next is a new mark, taken
// before the read.
func (m *Store) EventsAfter(ctx context.Context, mark ports.MemoryMark, afterID int64, fn func(domain.Event) bool) (next ports.MemoryMark, ok bool, err error) {
	if err := m.db.CheckFile(); err != nil {
		return "", false, err
	}
	if !m.db.OwnSince(mark) {
		return "", false, nil
	}
	if next, ok = m.Mark(); !ok {
		return "", false, nil
	}
	conn, err := m.db.Readers().Conn(ctx)
	if err != nil {
		return "", false, m.db.ConnError(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return "", false, m.db.ConnError(ctx, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "COMMIT")
	err = conn.Raw(func(dc any) error {
		h, err := engine.Open(dc)
		if err != nil {
			return err
		}
		stop := sqlite.ArmDeadline(ctx, h)
		defer stop()
		// afterID is the core's own number, never the agent's text.
		q := "SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events WHERE id >= " + strconv.FormatInt(afterID, 10) + " ORDER BY id"
		return eachRow(h, q, func(st engine.Stmt) bool {
			return fn(domain.Event{ID: st.Int64(0), TS: st.Text(1), Session: st.Text(2), Kind: st.Text(3),
				Content: st.Text(4), PrevHash: st.Text(5), Hash: st.Text(6)})
		})
	})
	if err != nil {
		return "", false, m.db.EngineError(ctx, err)
	}
	// The snapshot read lies between next and now: still only this
	// process's commits since next.
	if !m.db.OwnSince(next) {
		return "", false, nil
	}
	return next, true, nil
}

// ResumeFrom is [Store.Resume] for a chain whose events 1..verified
// were just verified: without excluded kinds it counts one by one only the
// events after verified, so its cost does not grow with the chain.
func (m *Store) ResumeFrom(ctx context.Context, max int, exclude []string, verified int64) (domain.ResumeState, error) {
	return m.resume(ctx, max, exclude, verified)
}

// countSince counts the events matching where (args) after since. With
// plain (no kind excluded) and verified > 0, events 1..verified are one
// per id, so those up to verified are counted by subtraction, and so are
// the retracted events and retractions after since when the file has
// them (sides).
func countSince(ctx context.Context, conn *sql.Conn, where string, args []any, since, verified int64, plain, sides bool, total *int) error {
	if !plain || verified <= 0 {
		return conn.QueryRowContext(ctx, "SELECT count(*) FROM memory_events WHERE "+where, args...).Scan(total)
	}
	var after int64
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM memory_events WHERE id > ?", max(since, verified)).Scan(&after); err != nil {
		return err
	}
	var hidden int64
	if sides {
		if err := conn.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM memory_retractions WHERE event_id > ?1) + (SELECT count(*) FROM memory_retractions WHERE retraction_id > ?1)", since).Scan(&hidden); err != nil {
			return err
		}
	}
	*total = int(max(verified-since, 0) + after - hidden)
	return nil
}
