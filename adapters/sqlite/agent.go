package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	msqlite "modernc.org/sqlite"
	lib "modernc.org/sqlite/lib"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// maxValueBytes caps any string or blob an agent statement can build or
// read (SQLITE_LIMIT_LENGTH). zeroblob/randomblob/printf bombs then fail
// with "string or blob too big" instead of growing the process.
//
// SQLite memory is allocated outside the Go heap, and building one value
// costs several times its size there: printf, group_concat and || grow a
// buffer by doubling, each step a fresh region, and the allocator keeps the
// last freed region of each size class mapped for reuse. At 32 MiB a
// single `s || s` recursion peaked at 155 MB RSS and a 32 MiB cell at
// 130 MB; at 8 MiB the worst bomb in test/e2e/limits_test.go stays under
// 70 MB, which keeps the memory budget (docs/decisions.md#performance-budgets) with room for the Go side.
const maxValueBytes = 8 << 20

// call is the state of one agent tool call on one connection: the policy
// the authorizer applies, what it saw, and what the pre-update hook
// counted. The authorizer and the hook run on the goroutine stepping the
// statement, so the fields need no lock.
type call struct {
	h      handle
	dc     any // the driver connection h belongs to, for the server's own statements
	policy domain.Policy

	running   bool // the statement compiled and is now stepping
	suspended bool // the server's own BEGIN/COMMIT/ROLLBACK
	denial    string
	seen      uint64 // bit per domain.Action, while the statement compiles

	shadow     map[string]bool // lower-cased names of real shadow tables
	virtual    map[string]bool // lower-cased names of virtual tables
	lazyShadow func() map[string]bool
	// inserted are the virtual tables the statement or its triggers insert
	// into: SQLite's pre-update hook does not see them, so the guard counts
	// their rows itself (guard.go).
	inserted []string
	// vtabTop and vtabTrigger say whether the statement itself, or one of
	// the triggers it fires, writes a virtual table (guard.go).
	vtabTop, vtabTrigger bool

	changed    int64 // rows updated or deleted (REPLACE and upsert included)
	written    int64 // rows the hook saw inserted or updated, in any table
	lastInsert int64 // rowid of the last row inserted into a rowid table
	// stmt is the agent statement stepping; wiped names the shadow table a
	// module statement emptied while it ran in the write tier (guard.go).
	stmt  uintptr
	wiped string

	journalNote string // see Store.journalModeNote
	// cache is the reader connection's statement cache (stmtcache.go), nil
	// in the write tiers.
	cache *connState
}

func (c *call) authorize(a msqlite.AuthorizerActionCode, arg1, arg2, database, trigger string) msqlite.AuthorizerReturnCode {
	if c.suspended {
		return msqlite.AuthorizerOK
	}
	act := domain.Action(a)
	// Only the statement's own actions count; what SQLite runs for it
	// later (FTS5 and R*Tree maintaining their shadow tables) does not.
	if act > 0 && act < 64 && !c.running {
		c.seen |= 1 << uint(act)
		c.noteVirtual(act, arg1, trigger)
	}
	reason := c.policy.Check(domain.AuthRequest{
		Action: act, Arg1: arg1, Arg2: arg2, Database: database, Trigger: trigger, Running: c.running,
	})
	if reason == "" && act == domain.ActionPragma && c.journalNote != "" && strings.EqualFold(arg1, "journal_mode") {
		reason = c.journalNote
	}
	if reason == "" {
		return msqlite.AuthorizerOK
	}
	if c.denial == "" {
		c.denial = reason
	}
	return msqlite.AuthorizerDeny
}

func (c *call) preUpdate(d msqlite.SQLitePreUpdateData) {
	name := strings.ToLower(d.TableName)
	c.countWrite(domain.Action(d.Op), name)
	if domain.IsInternalName(name) || c.shadow[name] {
		return
	}
	switch domain.Action(d.Op) {
	case domain.ActionUpdate, domain.ActionDelete:
		c.changed++
	case domain.ActionInsert:
		c.lastInsert = d.NewRowID
	}
}

func (c *call) isShadow(table string) bool {
	if c.shadow == nil && c.lazyShadow != nil {
		c.shadow = c.lazyShadow()
	}
	return c.shadow[strings.ToLower(table)]
}

func (c *call) saw(a domain.Action) bool { return c.seen&(1<<uint(a)) != 0 }

func (c *call) actions() []domain.Action {
	var out []domain.Action
	for a := domain.Action(1); a < 64; a++ {
		if c.saw(a) {
			out = append(out, a)
		}
	}
	return out
}

func (c *call) sawDDL() bool {
	for _, a := range c.actions() {
		if a.IsDDL() {
			return true
		}
	}
	return false
}

// reset forgets what the previous statement of this call saw.
func (c *call) reset() {
	c.running, c.denial, c.seen, c.changed, c.lastInsert, c.inserted = false, "", 0, 0, 0, nil
	c.vtabTop, c.vtabTrigger, c.written, c.stmt, c.wiped = false, false, 0, 0, ""
}

// withAgent runs fn on an agent connection of the tier's pool with the
// policy installed and ctx's deadline armed.
func (s *Store) withAgent(ctx context.Context, tier domain.Tier, fn func(*call) error) error {
	pool := s.writers
	if tier == domain.TierRead {
		pool = s.readers
	}
	if err := s.checkImmutable(); err != nil {
		return err
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return s.connError(ctx, err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		h, err := rawHandle(dc)
		if err != nil {
			return err
		}
		// Before anything of the agent's runs: the built-ins a deadline
		// cannot stop are replaced by ones it can (bounded.go).
		if err := h.registerBounded(); err != nil {
			return err
		}
		c := &call{h: h, dc: dc, policy: domain.Policy{Tier: tier, Origin: domain.OriginOf(ctx)}, journalNote: s.journalModeNote()}
		if tier == domain.TierRead {
			c.cache = s.stmts.state(dc)
			c.cache.off = s.opts.NoStatementCache
		}
		if tier != domain.TierRead {
			if c.shadow, c.virtual, err = tableKinds(h); err != nil {
				return s.translate(ctx, c, err)
			}
		} else {
			// Reads rarely touch shadow tables (an R*Tree connecting does),
			// so the set is looked up only then, on another connection:
			// the authorizer must not use its own.
			c.lazyShadow = func() map[string]bool {
				m, err := s.shadowTables(ctx)
				if err != nil {
					return map[string]bool{}
				}
				return m
			}
		}
		c.policy.IsShadow = c.isShadow
		h.limit(lib.SQLITE_LIMIT_LENGTH, maxValueBytes)
		// No database can be attached to an agent connection at all, so an
		// ATTACH fails inside SQLite even if every other layer missed it.
		h.limit(lib.SQLITE_LIMIT_ATTACHED, 0)
		if c.cache != nil {
			// Pooled connections keep state between calls: re-assert the
			// read-only switch before each read, whatever happened before.
			if err := c.cache.ensureQueryOnly(h); err != nil {
				return s.translate(ctx, c, err)
			}
		} else if s.opts.ReadOnly {
			if err := h.exec("PRAGMA query_only = 1"); err != nil {
				return s.translate(ctx, c, err)
			}
		}
		reg := dc.(msqlite.AuthorizerRegisterer)
		auth := msqlite.AuthorizerFn(c.authorize)
		if s.opts.skipAuthorizer {
			auth = nil // tests only: the layers behind it must hold alone
		}
		switch {
		case c.cache != nil:
			// Installed once: setting an authorizer expires every cached
			// statement of the connection (stmtcache.go).
			if auth != nil && !c.cache.authOn {
				if err := reg.RegisterAuthorizer(c.cache.authorize); err != nil {
					return err
				}
				c.cache.authOn = true
			}
			c.cache.cur = c
			defer func() { c.cache.cur = nil }()
		default:
			if err := reg.RegisterAuthorizer(auth); err != nil {
				return err
			}
			defer reg.RegisterAuthorizer(nil)
		}
		hook := dc.(interface {
			RegisterPreUpdateHook(msqlite.PreUpdateHookFn)
		})
		hook.RegisterPreUpdateHook(c.preUpdate)
		defer hook.RegisterPreUpdateHook(nil)

		stop := armDeadline(ctx, h.db)
		err = fn(c)
		stop()
		if err != nil && !h.autocommit() {
			c.suspended = true
			_ = h.exec("ROLLBACK")
		}
		return s.translate(ctx, c, err)
	})
}

// armDeadline interrupts SQLite once ctx is done, repeating until the call
// ends, because SQLite drops an interrupt that arrives between statements.
// The returned stop waits until no interrupt can arrive any more.
func armDeadline(ctx context.Context, db uintptr) (stop func()) {
	var mu sync.Mutex
	done := false
	finished := make(chan struct{})
	unregister := context.AfterFunc(ctx, func() {
		defer close(finished)
		for {
			mu.Lock()
			if done {
				mu.Unlock()
				return
			}
			interrupt(db)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	})
	return func() {
		mu.Lock()
		done = true
		mu.Unlock()
		if !unregister() {
			<-finished
		}
	}
}

// translate maps what went wrong to the error the agent sees.
func (s *Store) translate(ctx context.Context, c *call, err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	var se *sqliteError
	if !errors.As(err, &se) {
		return s.connError(ctx, err)
	}
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return errCancelled()
	case ctx.Err() != nil && (se.code == lib.SQLITE_INTERRUPT || errors.Is(ctx.Err(), context.DeadlineExceeded)):
		return s.timeoutError()
	case se.code == lib.SQLITE_BUSY:
		return s.busyError()
	case se.code == lib.SQLITE_NOMEM:
		return heapError()
	case se.code == lib.SQLITE_CORRUPT || se.code == lib.SQLITE_NOTADB:
		return s.damagedError(se.msg)
	case c != nil && c.denial != "" && se.code == lib.SQLITE_AUTH:
		return domain.Errorf(domain.ErrPolicy, "%s", c.denial)
	case c != nil && c.denial != "" && strings.Contains(se.msg, "not authorized"):
		return domain.Errorf(domain.ErrPolicy, "%s", c.denial)
	}
	return domain.SQLiteError(s.scrub(se.msg))
}

func (s *Store) timeoutError() error {
	return domain.Errorf(domain.ErrTimeout, "query exceeded %ss and was cancelled; narrow it, add a LIMIT, or add an index", domain.FormatSeconds(s.opts.QueryTimeout))
}

// lockError words a failure to take the write lock (BEGIN IMMEDIATE): when
// another connection keeps it past the busy timeout, or past the call's
// deadline while this one waits, the agent is told the database is locked,
// not that its query was slow.
func (s *Store) lockError(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return errCancelled()
	case ctx.Err() != nil || isBusy(err):
		return s.busyError()
	}
	return err
}

// isBusy reports whether err is SQLite's SQLITE_BUSY ("database is locked"),
// from the C API or from the database/sql driver.
func isBusy(err error) bool {
	var se *sqliteError
	if errors.As(err, &se) {
		return se.code == lib.SQLITE_BUSY
	}
	var me *msqlite.Error
	return errors.As(err, &me) && me.Code()&0xff == lib.SQLITE_BUSY
}

// busyError says the write lock stayed taken by someone else.
func (s *Store) busyError() error {
	wait := busyTimeout
	if q := s.opts.QueryTimeout; q > 0 && q < wait {
		wait = q
	}
	return domain.Errorf(domain.ErrBusy, "%s is locked by another program or server process that holds a write transaction on it; "+
		"waited %ss, nothing was changed. Retry the call in a moment; if it stays locked, end that program's transaction",
		s.name, domain.FormatSeconds(wait))
}

// damagedError keeps SQLite's message and says what it means: the file was
// cut short or overwritten behind SQLite's back, and the way back is a copy.
func (s *Store) damagedError(msg string) error {
	return domain.SQLiteError(s.scrub(msg) + ". " + damagedHint(s.name))
}

// damagedHint is what to do about a damaged database file.
func damagedHint(name string) string {
	return fmt.Sprintf("%[1]s is damaged (cut short, or overwritten by another program); stop writing to it and "+
		"restore the newest snapshot of it (the snapshot tool's folder), or save what is left with the sqlite3 shell: "+
		"sqlite3 %[1]s .recover", name)
}

func errCancelled() error {
	return domain.Errorf(domain.ErrTimeout, "the call was cancelled before it finished (the client gave up or the server is shutting down); nothing was changed")
}

// connError reports a failure to get or use a connection.
func (s *Store) connError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errCancelled()
	}
	if ctx.Err() != nil {
		return s.timeoutError()
	}
	if isBusy(err) {
		return s.busyError()
	}
	var me *msqlite.Error
	if errors.As(err, &me) && me.Code()&0xff == lib.SQLITE_NOMEM {
		return heapError()
	}
	if errors.As(err, &me) && (me.Code()&0xff == lib.SQLITE_CORRUPT || me.Code()&0xff == lib.SQLITE_NOTADB) {
		return s.damagedError(err.Error())
	}
	return domain.SQLiteError(s.scrub(err.Error()))
}

// scrub removes absolute paths of the database from a message: agents see the
// file's name only (docs/decisions.md#errors).
func (s *Store) scrub(msg string) string {
	if s.path == "" {
		return msg
	}
	return strings.ReplaceAll(msg, s.path, s.name)
}
