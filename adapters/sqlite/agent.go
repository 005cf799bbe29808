package sqlite

import (
	"context"
	"strings"
	"sync"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
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
	h      engine.Handle
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
	stmt  engine.Stmt
	wiped string

	journalNote string // see dbfile.File.JournalModeNote
	// cache is the reader connection's statement cache (stmtcache.go), nil
	// in the write tiers.
	cache *connState
	// measure, set during a dry run, collects the statement's impact
	// (impact.go).
	measure *measure
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
		if c.measure != nil {
			c.measure.note(c, act, arg1, arg2, trigger)
		}
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
	if c.measure != nil {
		c.measure.row(c, d.TableName, domain.Action(d.Op))
	}
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
	c.vtabTop, c.vtabTrigger, c.written, c.stmt, c.wiped = false, false, 0, engine.Stmt{}, ""
}

// withAgent runs fn on an agent connection of the tier's pool with the
// policy installed and ctx's deadline armed. Each step is its own function:
// borrow the connection (here), prepare the call's state (newCall), set the
// connection's limits (limitAgent), install the authorizer and the
// pre-update hook (installPolicy, which returns their removal), and run fn
// under the deadline (runArmed).
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
		c, err := s.newCall(ctx, tier, dc)
		if err != nil {
			return err
		}
		if err := s.limitAgent(ctx, c); err != nil {
			return err
		}
		remove, err := s.installPolicy(c)
		if err != nil {
			return err
		}
		defer remove()
		return s.runArmed(ctx, c, fn)
	})
}

// newCall prepares one call on the driver connection dc: the bounded
// built-ins, the policy, the reader's statement cache, and which tables are
// shadow or virtual tables.
func (s *Store) newCall(ctx context.Context, tier domain.Tier, dc any) (*call, error) {
	h, err := engine.Open(dc)
	if err != nil {
		return nil, err
	}
	// Before anything of the agent's runs: the built-ins a deadline
	// cannot stop are replaced by ones it can (package engine).
	if err := h.RegisterBounded(); err != nil {
		return nil, err
	}
	c := &call{h: h, dc: dc, policy: domain.Policy{Tier: tier, Origin: domain.OriginOf(ctx), ReadOnly: s.opts.ReadOnly}, journalNote: s.ro.JournalModeNote()}
	if tier == domain.TierRead {
		c.cache = s.stmts.state(dc)
		c.cache.off = s.opts.NoStatementCache
	}
	if tier != domain.TierRead {
		if c.shadow, c.virtual, err = tableKinds(h); err != nil {
			return nil, s.translate(ctx, c, err)
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
	return c, nil
}

// limitAgent sets the connection's limits and, for reads and in read-only
// mode, its read-only switch, before each call: pooled connections keep
// state between calls.
func (s *Store) limitAgent(ctx context.Context, c *call) error {
	h := c.h
	h.Limit(engine.LimitLength, maxValueBytes)
	// No database can be attached to an agent connection at all, so an
	// ATTACH fails inside SQLite even if every other layer missed it.
	h.Limit(engine.LimitAttached, 0)
	if c.cache != nil {
		// Pooled connections keep state between calls: re-assert the
		// read-only switch before each read, whatever happened before.
		if err := c.cache.ensureQueryOnly(h); err != nil {
			return s.translate(ctx, c, err)
		}
	} else if s.opts.ReadOnly {
		if err := h.Exec("PRAGMA query_only = 1"); err != nil {
			return s.translate(ctx, c, err)
		}
	}
	return nil
}

// installPolicy installs c's authorizer and pre-update hook on its
// connection. remove takes them off again (a reader's authorizer stays
// installed, pointing at no call).
func (s *Store) installPolicy(c *call) (remove func(), err error) {
	reg := c.dc.(msqlite.AuthorizerRegisterer)
	auth := msqlite.AuthorizerFn(c.authorize)
	if s.opts.skipAuthorizer {
		auth = nil // tests only: the layers behind it must hold alone
	}
	var unauthorize func()
	switch {
	case c.cache != nil:
		// Installed once: setting an authorizer expires every cached
		// statement of the connection (stmtcache.go).
		if auth != nil && !c.cache.authOn {
			if err := reg.RegisterAuthorizer(c.cache.authorize); err != nil {
				return nil, err
			}
			c.cache.authOn = true
		}
		c.cache.cur = c
		unauthorize = func() { c.cache.cur = nil }
	default:
		if err := reg.RegisterAuthorizer(auth); err != nil {
			return nil, err
		}
		unauthorize = func() { _ = reg.RegisterAuthorizer(nil) }
	}
	hook := c.dc.(interface {
		RegisterPreUpdateHook(msqlite.PreUpdateHookFn)
	})
	hook.RegisterPreUpdateHook(c.preUpdate)
	return func() {
		hook.RegisterPreUpdateHook(nil)
		unauthorize()
	}, nil
}

// runArmed runs fn with ctx's deadline armed, rolls back what a failed fn
// left open, and translates its error for the agent.
func (s *Store) runArmed(ctx context.Context, c *call, fn func(*call) error) error {
	stop := armDeadline(ctx, c.h)
	err := fn(c)
	stop()
	if err != nil && !c.h.Autocommit() {
		c.suspended = true
		_ = c.h.Exec("ROLLBACK")
	}
	return s.translate(ctx, c, err)
}

// armDeadline interrupts SQLite once ctx is done, repeating until the call
// ends, because SQLite drops an interrupt that arrives between statements.
// The returned stop waits until no interrupt can arrive any more.
func armDeadline(ctx context.Context, h engine.Handle) (stop func()) {
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
			h.Interrupt()
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
