package sqlite

import (
	"context"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// StatementRunner runs the agent's SQL under the tiers' policy: read_query,
// write_query and destructive_query, and the check of a statement before
// anything runs. Its statements go through the agent connections of db
// (agent.go).
type StatementRunner struct {
	db *Store
}

var (
	_ ports.StatementRunner = (*StatementRunner)(nil)
	_ ports.AuditSealer     = (*StatementRunner)(nil)
)

// NewStatementRunner returns the statement runner of db.
func NewStatementRunner(db *Store) *StatementRunner {
	return &StatementRunner{db: db}
}

// Seals reports whether sink is the audit sink of the same database: the
// audit row of a write then commits in the same transaction.
func (r *StatementRunner) Seals(sink ports.AuditSink) bool { return r.db.seals(sink) }

// errSeveral is the one-statement-per-call refusal.
func errSeveral() error {
	return domain.Errorf(domain.ErrInvalidArgument, "You can only execute one statement at a time. Send each statement in its own call (only comments and one trailing ';' may follow it).")
}

func errParams(n int) error {
	return domain.Errorf(domain.ErrInvalidArgument, "the statement uses %d bound parameter(s) (?, :name, @name or $name) and the tools bind none; write the values into the SQL as literals", n)
}

// compileOne compiles exactly one statement: SQLite decides where it ends
// (the prepare tail), and after it only whitespace and comments may follow.
// Nothing has run when it returns an error.
func (c *call) compileOne(sql string) (engine.Stmt, error) {
	return c.compileOneFlags(sql, 0)
}

// compileOneFlags is compileOne with sqlite3_prepare_v3's flags.
func (c *call) compileOneFlags(sql string, flags uint32) (engine.Stmt, error) {
	c.reset()
	// The authorizer cannot tell PRAGMA x = '' from a value-less PRAGMA x
	// (the driver passes NULL as ""), and VACUUM never reaches it inside a
	// transaction; the policy reads those from the statement's head.
	if reason := c.policy.CheckSQL(sql); reason != "" {
		return engine.Stmt{}, domain.Errorf(domain.ErrPolicy, "%s", reason)
	}
	st, tail, err := c.h.PrepareFlags(sql, flags)
	if err != nil {
		return engine.Stmt{}, err
	}
	if !onlyComments(tail) {
		st.Finalize()
		return engine.Stmt{}, errSeveral()
	}
	if !st.Empty() {
		if n := st.Params(); n > 0 {
			st.Finalize()
			return engine.Stmt{}, errParams(n)
		}
	}
	c.running = true
	return st, nil
}

// onlyComments reports whether s holds nothing but whitespace (as SQLite
// defines it) and complete or trailing comments.
func onlyComments(s string) bool {
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f':
			i++
		case s[i] == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			end := indexFrom(s, "*/", i+2)
			if end < 0 {
				return true // an unterminated comment runs to the end
			}
			i = end + 2
		default:
			return false
		}
	}
	return true
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Read runs one statement under the read tier, streaming rows. TEXT longer
// than Options.MaxCellChars code points arrives as a [domain.LongText].
func (r *StatementRunner) Read(ctx context.Context, sql string, columns func([]string), row ports.RowFunc) error {
	return r.db.read(ctx, sql, r.db.opts.MaxCellChars, columns, row)
}

// Compile checks one statement under tier without running it.
func (r *StatementRunner) Compile(ctx context.Context, tier domain.Tier, sql string) (domain.Compiled, error) {
	var out domain.Compiled
	err := r.db.withAgent(ctx, tier, func(c *call) error {
		st, err := c.compileOne(r.db.ro.TruthfulSQL(sql))
		if err != nil {
			return err
		}
		defer st.Finalize()
		out = domain.Compiled{Actions: c.actions(), Columns: st.NCol(), Empty: st.Empty(), ReadOnly: !st.Empty() && st.Readonly()}
		if tier == domain.TierRead && !st.Empty() {
			return r.db.inspect(c, st)
		}
		return nil
	})
	return out, err
}

// Write runs one statement under the write or destructive tier in one
// BEGIN IMMEDIATE transaction, with the UPDATE guard, and stores
// req.Audit's row in the same transaction. It waits for this process's
// earlier writes first (writelock.go).
func (r *StatementRunner) Write(ctx context.Context, req domain.WriteRequest, columns func([]string), row ports.RowFunc) (domain.WriteResult, error) {
	var res domain.WriteResult
	budget := time.Now().Add(busyTimeout)
	release, err := r.db.lockWrites(ctx)
	if err != nil {
		return res, err
	}
	defer release()
	err = r.db.withAgent(ctx, req.Tier, func(c *call) error {
		c.suspended = true
		// Waiting for another program's lock ends with the call's deadline
		// (the interrupt that enforces it cannot end that wait) or its
		// budget (writelock.go), whichever comes first.
		c.h.SetBusyTimeout(foreignWait(ctx, budget))
		err := c.h.Exec("BEGIN IMMEDIATE")
		c.h.SetBusyTimeout(busyTimeout)
		if err != nil {
			return r.db.lockError(ctx, err)
		}
		c.suspended = false
		st, err := c.compileOne(req.SQL)
		if err != nil {
			return err
		}
		defer st.Finalize()
		st.TextCap = r.db.opts.MaxCellChars // RETURNING rows are cut like read_query's
		g, err := c.startGuard(req.MaxUpdateRows > 0 && !c.sawDDL())
		if err != nil {
			return err
		}
		c.stmt = st
		if !st.Empty() {
			res.HasColumns = st.NCol() > 0
			if res.HasColumns {
				columns(st.Columns())
			}
			err := stream(st, row)
			if c.wiped != "" {
				return c.wipeError()
			}
			if err != nil {
				return err
			}
		}
		res = c.result(res)
		if err := c.checkGuard(g, req.MaxUpdateRows); err != nil {
			return err
		}
		if req.Approved && c.changed > req.ApprovedRows {
			return domain.ApprovalExceededError(c.changed, req.ApprovedRows)
		}
		st.Finalize()
		// A statement can finish after the deadline without SQLite
		// noticing the interrupt (it is checked between steps, and the
		// flag is cleared once no statement runs). A call that timed out
		// commits nothing: the caller rolls back.
		if err := ctx.Err(); err != nil {
			return err
		}
		if req.Audit != nil {
			if err := c.insertAuditOn(ctx, c.dc, req.Audit(res)); err != nil {
				return err
			}
		}
		c.suspended = true
		return c.h.Exec("COMMIT")
	})
	return res, err
}

// stream steps a write statement to the end, handing rows to row until it
// declines them: a write must finish even when nobody wants more rows.
func stream(st engine.Stmt, row ports.RowFunc) error {
	want := st.NCol() > 0
	vals := make([]any, st.NCol())
	for {
		more, err := st.Step()
		if err != nil || !more {
			return err
		}
		if want {
			st.Row(vals)
			want = row(vals)
			if !want && st.Readonly() {
				return nil
			}
		}
	}
}

// result summarises what the statement did (docs/decisions.md#write-results and #fixes-over-the-reference, item 1: the
// count is SQLite's own whenever rows were written, whatever the first
// keyword).
func (c *call) result(r domain.WriteResult) domain.WriteResult {
	r.Schema = c.sawDDL()
	r.RowsAffected = -1
	if c.saw(domain.ActionInsert) || c.saw(domain.ActionUpdate) || c.saw(domain.ActionDelete) {
		r.RowsAffected = c.h.Changes()
	}
	r.LastInsertRowID = c.lastInsert
	return r
}

// countRows counts the rows of tables on the call's connection, inside its
// transaction, with the policy suspended (these are the server's queries).
func (c *call) countRows(tables []string) (int64, error) {
	c.suspended = true
	defer func() { c.suspended = false }()
	var total int64
	for _, t := range tables {
		st, _, err := c.h.Prepare("SELECT count(*) FROM " + quoteIdent(t))
		if err != nil {
			return 0, err
		}
		v := make([]any, 1)
		more, err := st.Step()
		if err == nil && more {
			st.Row(v)
			n, _ := v[0].(int64)
			total += n
		}
		st.Finalize()
		if err != nil {
			return 0, err
		}
	}
	return total, nil
}
