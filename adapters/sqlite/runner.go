package sqlite

import (
	"context"
	"time"

	lib "modernc.org/sqlite/lib"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

var _ ports.StatementRunner = (*Store)(nil)

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
func (c *call) compileOne(sql string) (prepared, error) {
	return c.compileOneFlags(sql, 0)
}

// compileOneFlags is compileOne with sqlite3_prepare_v3's flags.
func (c *call) compileOneFlags(sql string, flags uint32) (prepared, error) {
	c.reset()
	// The authorizer cannot tell PRAGMA x = '' from a value-less PRAGMA x
	// (the driver passes NULL as ""), and VACUUM never reaches it inside a
	// transaction; the policy reads those from the statement's head.
	if reason := c.policy.CheckSQL(sql); reason != "" {
		return prepared{}, domain.Errorf(domain.ErrPolicy, "%s", reason)
	}
	st, tail, err := c.h.prepareFlags(sql, flags)
	if err != nil {
		return prepared{}, err
	}
	if !onlyComments(tail) {
		st.finalize()
		return prepared{}, errSeveral()
	}
	if st.p != 0 {
		if n := st.params(); n > 0 {
			st.finalize()
			return prepared{}, errParams(n)
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
func (s *Store) Read(ctx context.Context, sql string, columns func([]string), row ports.RowFunc) error {
	return s.read(ctx, sql, s.opts.MaxCellChars, columns, row)
}

// read is Read with the text cap given: 0 reads every value whole.
func (s *Store) read(ctx context.Context, sql string, textCap int, columns func([]string), row ports.RowFunc) error {
	return s.withAgent(ctx, domain.TierRead, func(c *call) error {
		sql := s.truthfulSQL(sql)
		st, entry, err := s.readStatement(c, sql)
		if err != nil {
			return err
		}
		defer func() {
			if entry == nil {
				st.finalize()
			} else if st.p != 0 {
				lib.Xsqlite3_reset(st.h.tls, st.p) // kept for the next call
			}
		}()
		st.textCap = textCap
		if st.p == 0 {
			columns(nil)
			return nil
		}
		more, err := st.step()
		if err == nil && entry != nil && reprepares(st.h, st.p) != entry.reprep {
			// SQLite recompiled the kept statement (its schema changed):
			// nothing has left yet; inspect the new program, run it anew.
			more, err = s.reinspect(c, &st, entry)
		}
		if err != nil {
			if entry != nil {
				c.cache.drop(st.h, entry)
				st.p = 0
			}
			return err
		}
		columns(st.columns())
		vals := make([]any, st.ncol)
		for more {
			st.row(vals)
			if !row(vals) {
				break
			}
			if more, err = st.step(); err != nil {
				return err
			}
		}
		// Read-only mode: rows read while another program changed the
		// file under immutable=1 may mix pages; none is sent.
		return s.checkAfterRead()
	})
}

// readStatement compiles and inspects sql for the read tier, or takes it
// from the connection's cache (stmtcache.go). entry is nil when the caller
// owns the statement and must finalize it.
func (s *Store) readStatement(c *call, sql string) (prepared, *cachedStmt, error) {
	if e := c.cache.get(sql); e != nil {
		c.reset()
		c.running = true
		st := prepared{h: c.h, p: e.p, ncol: int(lib.Xsqlite3_column_count(c.h.tls, e.p))}
		return st, e, nil
	}
	// Only SQL seen before on this connection is kept: a statement held
	// for later takes memory every compile could use, so one-off SQL
	// (most agent SQL: the tools bind no parameters) is not kept.
	keep := c.cache.seenBefore(sql)
	var flags uint32
	if keep {
		flags = lib.SQLITE_PREPARE_PERSISTENT
	}
	st, err := c.compileOneFlags(sql, flags)
	if err != nil {
		return prepared{}, nil, err
	}
	if st.p == 0 {
		return st, nil, nil
	}
	if err := s.inspect(c, st); err != nil {
		st.finalize()
		return prepared{}, nil, err
	}
	if !keep {
		return st, nil, nil
	}
	return st, c.cache.put(c.h, c, sql, st), nil
}

// reinspect inspects a kept statement SQLite recompiled, and steps it from
// its start when the new program still only reads.
func (s *Store) reinspect(c *call, st *prepared, e *cachedStmt) (bool, error) {
	lib.Xsqlite3_reset(st.h.tls, st.p)
	if err := s.inspect(c, *st); err != nil {
		return false, err
	}
	e.reprep, e.inspects = reprepares(st.h, st.p), e.inspects+1
	st.ncol = int(lib.Xsqlite3_column_count(st.h.tls, st.p))
	return st.step()
}

// Compile checks one statement under tier without running it.
func (s *Store) Compile(ctx context.Context, tier domain.Tier, sql string) (domain.Compiled, error) {
	var out domain.Compiled
	err := s.withAgent(ctx, tier, func(c *call) error {
		st, err := c.compileOne(s.truthfulSQL(sql))
		if err != nil {
			return err
		}
		defer st.finalize()
		out = domain.Compiled{Actions: c.actions(), Columns: st.ncol, Empty: st.p == 0}
		if tier == domain.TierRead && st.p != 0 {
			return s.inspect(c, st)
		}
		return nil
	})
	return out, err
}

// Write runs one statement under the write or destructive tier in one
// BEGIN IMMEDIATE transaction, with the UPDATE guard, and stores
// req.Audit's row in the same transaction. It waits for this process's
// earlier writes first (writelock.go).
func (s *Store) Write(ctx context.Context, req domain.WriteRequest, columns func([]string), row ports.RowFunc) (domain.WriteResult, error) {
	var res domain.WriteResult
	budget := time.Now().Add(busyTimeout)
	release, err := s.lockWrites(ctx)
	if err != nil {
		return res, err
	}
	defer release()
	err = s.withAgent(ctx, req.Tier, func(c *call) error {
		c.suspended = true
		// Waiting for another program's lock ends with the call's deadline
		// (the interrupt that enforces it cannot end that wait) or its
		// budget (writelock.go), whichever comes first.
		c.h.setBusyTimeout(foreignWait(ctx, budget))
		err := c.h.exec("BEGIN IMMEDIATE")
		c.h.setBusyTimeout(busyTimeout)
		if err != nil {
			return s.lockError(ctx, err)
		}
		c.suspended = false
		st, err := c.compileOne(req.SQL)
		if err != nil {
			return err
		}
		defer st.finalize()
		st.textCap = s.opts.MaxCellChars // RETURNING rows are cut like read_query's
		g, err := c.startGuard(req.MaxUpdateRows > 0 && !c.sawDDL())
		if err != nil {
			return err
		}
		c.stmt = st.p
		if st.p != 0 {
			res.HasColumns = st.ncol > 0
			if res.HasColumns {
				columns(st.columns())
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
		st.finalize()
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
		return c.h.exec("COMMIT")
	})
	return res, err
}

// stream steps a write statement to the end, handing rows to row until it
// declines them: a write must finish even when nobody wants more rows.
func stream(st prepared, row ports.RowFunc) error {
	want := st.ncol > 0
	vals := make([]any, st.ncol)
	for {
		more, err := st.step()
		if err != nil || !more {
			return err
		}
		if want {
			st.row(vals)
			want = row(vals)
			if !want && st.readonly() {
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
		r.RowsAffected = c.h.changes()
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
		st, _, err := c.h.prepare("SELECT count(*) FROM " + domain.QuoteIdent(t))
		if err != nil {
			return 0, err
		}
		v := make([]any, 1)
		more, err := st.step()
		if err == nil && more {
			st.row(v)
			n, _ := v[0].(int64)
			total += n
		}
		st.finalize()
		if err != nil {
			return 0, err
		}
	}
	return total, nil
}
