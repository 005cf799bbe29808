// Package approval is the SQLite adapter's approval queue: the questions a
// server started with --confirm-fallback queue waits on, kept in the
// database file itself, and the decisions the pending, approve and deny
// subcommands record (docs/decisions.md#confirmation).
package approval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Queue is the approval queue in the database file itself: a
// question a person must answer is a row of mcp_approvals, and a decision
// a row of mcp_approval_decisions, whose primary key lets only the first
// decision on a question count. Any process on the file can list and
// decide them (the CLI's pending, approve and deny), so it works for stdio
// and HTTP servers and for several servers on one file. Both tables are
// server tables: the agent's SQL can read them but the policy refuses
// every write, and triggers refuse UPDATE and DELETE on any connection.
//
// The waiting server polls the decision row; it holds no transaction, and
// so no lock, while it waits.
type Queue struct {
	db    *sqlite.Store
	clock ports.Clock
	// poll is the time between two looks at the decision row.
	poll time.Duration
}

var _ ports.Confirmer = (*Queue)(nil)

// New returns the approval queue of db.
func New(db *sqlite.Store, clock ports.Clock) *Queue {
	return &Queue{db: db, clock: clock, poll: 200 * time.Millisecond}
}

// Confirm queues q and waits for a person's decision until ctx ends; the
// question then expires (recorded as such), unless a decision came first.
func (a *Queue) Confirm(ctx context.Context, q domain.Question) domain.Decision {
	d := domain.Decision{By: domain.DecidedByQueue}
	expires := a.clock.Now().Add(time.Hour)
	if dl, ok := ctx.Deadline(); ok {
		expires = dl
	}
	res, err := a.db.Internal().ExecContext(ctx, "INSERT INTO mcp_approvals (ts, session, tool, query, question, expires) VALUES (?, ?, ?, ?, ?, ?)",
		domain.FormatTS(a.clock.Now()), q.Session, q.Tool, q.SQL, q.Text(), domain.FormatTS(expires))
	if err != nil {
		d.Outcome, d.Note = domain.OutcomeGone, "the question could not be queued: "+a.db.Scrub(err.Error())
		return d
	}
	d.QueueID, _ = res.LastInsertId()
	t := time.NewTicker(a.poll)
	defer t.Stop()
	for {
		if got, by, ok := a.decision(ctx, d.QueueID); ok {
			return decided(d, got, by)
		}
		select {
		case <-ctx.Done():
			return a.expire(ctx, d)
		case <-t.C:
		}
	}
}

// expire records that nobody decided in time, unless someone just did.
func (a *Queue) expire(ctx context.Context, d domain.Decision) domain.Decision {
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), sqlite.BusyTimeout)
	defer cancel()
	_, _ = a.db.Internal().ExecContext(bg, "INSERT OR IGNORE INTO mcp_approval_decisions (approval_id, ts, decision, decided_by) VALUES (?, ?, 'expired', 'server')",
		d.QueueID, domain.FormatTS(a.clock.Now()))
	if got, by, ok := a.decision(bg, d.QueueID); ok && got != "expired" {
		return decided(d, got, by)
	}
	d.Outcome, d.Note = domain.OutcomeTimedOut, fmt.Sprintf("question %d in the approval queue expired", d.QueueID)
	if errors.Is(ctx.Err(), context.Canceled) {
		d.Outcome, d.Note = domain.OutcomeGone, fmt.Sprintf("the call ended while question %d waited in the approval queue", d.QueueID)
	}
	return d
}

func decided(d domain.Decision, decision, by string) domain.Decision {
	d.Outcome = domain.OutcomeDeclined
	if decision == "approved" {
		d.Outcome = domain.OutcomeApproved
	}
	d.Note = fmt.Sprintf("question %d %s by %s", d.QueueID, decision, by)
	return d
}

// decision reads question id's decision, if there is one.
func (a *Queue) decision(ctx context.Context, id int64) (decision, by string, ok bool) {
	err := a.db.Internal().QueryRowContext(ctx, "SELECT decision, decided_by FROM mcp_approval_decisions WHERE approval_id = ?", id).Scan(&decision, &by)
	return decision, by, err == nil
}

// Approval is one question of the approval queue as the CLI lists it.
type Approval struct {
	ID                             int64
	TS, Session, Tool, Query       string
	Question, Expires              string
	Decision, DecidedBy, DecidedAt string // "" while pending
}

// List lists the queue's questions, newest last: only those still
// waiting for a decision when pending is set. A database without the
// queue's tables has none.
func (a *Queue) List(ctx context.Context, pending bool, now time.Time) ([]Approval, error) {
	var n int
	if err := a.db.Internal().QueryRowContext(ctx, "SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name IN (?, ?)",
		domain.ApprovalsTable, domain.ApprovalDecisionsTable).Scan(&n); err != nil {
		return nil, err
	}
	if n < 2 {
		return nil, nil
	}
	q := `SELECT a.id, a.ts, a.session, a.tool, a.query, a.question, a.expires,
	        coalesce(d.decision, ''), coalesce(d.decided_by, ''), coalesce(d.ts, '')
	      FROM mcp_approvals a LEFT JOIN mcp_approval_decisions d ON d.approval_id = a.id`
	var args []any
	if pending {
		q += " WHERE d.approval_id IS NULL AND a.expires > ?"
		args = append(args, domain.FormatTS(now))
	}
	rows, err := a.db.Internal().QueryContext(ctx, q+" ORDER BY a.id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Approval
	for rows.Next() {
		var x Approval
		if err := rows.Scan(&x.ID, &x.TS, &x.Session, &x.Tool, &x.Query, &x.Question, &x.Expires, &x.Decision, &x.DecidedBy, &x.DecidedAt); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// ErrNotPending is Decide's error for a question that does not
// exist, was decided already or has expired; its text says which.
var ErrNotPending = errors.New("not pending")

// Decide records a person's decision on question id, with the
// audit row e, in one transaction: only a question still waiting can be
// decided, and only once.
func (a *Queue) Decide(ctx context.Context, id int64, approve bool, by string, now time.Time, e domain.AuditEntry) error {
	conn, err := a.db.Internal().Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("%s: %s", a.db.Name(), a.db.Scrub(err.Error()))
	}
	committed := false
	defer func() {
		if !committed {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	var expires, decision string
	err = conn.QueryRowContext(ctx, `SELECT a.expires, coalesce(d.decision, '') FROM mcp_approvals a
		LEFT JOIN mcp_approval_decisions d ON d.approval_id = a.id WHERE a.id = ?`, id).Scan(&expires, &decision)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: there is no question %d in the approval queue of %s", ErrNotPending, id, a.db.Name())
	case err != nil:
		return fmt.Errorf("%s: %s", a.db.Name(), a.db.Scrub(err.Error()))
	case decision != "":
		return fmt.Errorf("%w: question %d was already %s", ErrNotPending, id, decision)
	case expires <= domain.FormatTS(now):
		return fmt.Errorf("%w: question %d expired at %s; nothing was run", ErrNotPending, id, expires)
	}
	verdict := "denied"
	if approve {
		verdict = "approved"
	}
	if _, err := conn.ExecContext(ctx, "INSERT INTO mcp_approval_decisions (approval_id, ts, decision, decided_by) VALUES (?, ?, ?, ?)",
		id, domain.FormatTS(now), verdict, by); err != nil {
		return fmt.Errorf("%s: %s", a.db.Name(), a.db.Scrub(err.Error()))
	}
	if err := sqlite.InsertAudit(ctx, conn, e); err != nil {
		return fmt.Errorf("%s: %s", a.db.Name(), a.db.Scrub(err.Error()))
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("%s: %s", a.db.Name(), a.db.Scrub(err.Error()))
	}
	committed = true
	return nil
}
