package sqlite

import (
	"container/list"
	"hash/maphash"
	"sync"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Read-tier statements are kept compiled per connection, keyed by their
// SQL, so a repeated query compiles once instead of three times (policy,
// EXPLAIN inspection, run). The policy stays exact:
//
//   - The authorizer's verdict depends only on the tier (one pool per tier),
//     the SQL (the key), the schema and the store's fixed settings. SQLite
//     recompiles a statement whose schema changed (SQLITE_SCHEMA) before it
//     runs anything, and the authorizer, still installed, decides again.
//   - The EXPLAIN inspection (explain.go) looked at the old program: every
//     use compares SQLite's recompile counter (SQLITE_STMTSTATUS_REPREPARE)
//     after the first step, before any row leaves; on a change the program
//     is inspected again and run from its start.
//   - CheckSQL, the one-statement tail check and the parameter count depend
//     on the SQL alone, and only statements that passed them are kept.
//   - Only statements whose actions are all reads (SELECT, READ, FUNCTION,
//     RECURSIVE) are kept: no PRAGMA, no transaction control.
//
// SQLite expires every statement of a connection when its authorizer is set
// or a flag PRAGMA (query_only) is written, so on reader connections the
// authorizer is installed once and dispatches to the call in progress, and
// query_only is read before it is written.

// Bounds of one connection's cache: a statement's own memory
// (SQLITE_STMTSTATUS_MEMUSED) plus its SQL counts toward the bytes.
const (
	stmtCacheEntries  = 16
	stmtCacheBytes    = 256 << 10
	stmtCacheMaxEntry = 32 << 10
	// stmtCacheSeen is how many hashes of recent SQL a connection
	// remembers: SQL is kept from its second compile on.
	stmtCacheSeen = 256
	sweepEvery    = time.Second
)

// cachedStmt is one compiled, inspected read statement.
type cachedStmt struct {
	sql      string
	st       engine.Stmt
	bytes    int
	reprep   int32 // SQLITE_STMTSTATUS_REPREPARE when last inspected
	elem     *list.Element
	inspects int // how many times the program was inspected (tests)
}

// connState is what the store keeps for one reader connection.
type connState struct {
	dc     any
	cur    *call // the agent call holding the connection, nil between calls
	authOn bool
	off    bool // Options.NoStatementCache

	seen     map[uint64]bool
	seenRing [stmtCacheSeen]uint64
	seenNext int

	byKey map[string]*cachedStmt
	lru   list.List // front: most recently used
	bytes int
}

// authorize is the connection's one authorizer: the current call decides;
// between calls (the server's own catalog queries) everything is allowed,
// as when no authorizer is installed.
func (cs *connState) authorize(a msqlite.AuthorizerActionCode, arg1, arg2, database, trigger string) msqlite.AuthorizerReturnCode {
	if cs.cur == nil {
		return msqlite.AuthorizerOK
	}
	return cs.cur.authorize(a, arg1, arg2, database, trigger)
}

// stmtCaches tracks the states of the reader connections. Connections the
// pool closed keep their SQLite memory (sqlite3_close_v2 waits for their
// statements) until sweep finalizes their statements.
type stmtCaches struct {
	mu        sync.Mutex
	states    map[any]*connState
	lastSweep time.Time
}

// state returns dc's state, creating it (and sweeping closed connections)
// the first time.
func (sc *stmtCaches) state(dc any) *connState {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.states == nil {
		sc.states = map[any]*connState{}
	}
	cs := sc.states[dc]
	if cs == nil || time.Since(sc.lastSweep) > sweepEvery {
		sc.sweepLocked()
	}
	if cs == nil {
		cs = &connState{dc: dc, byKey: map[string]*cachedStmt{}}
		sc.states[dc] = cs
	}
	return cs
}

// sweep finalizes the statements of connections the pool has closed.
func (sc *stmtCaches) sweep() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.sweepLocked()
}

func (sc *stmtCaches) sweepLocked() {
	sc.lastSweep = time.Now()
	for dc, cs := range sc.states {
		if !connClosed(dc) {
			continue
		}
		for _, e := range cs.byKey {
			engine.FinalizeDetached(e.st)
		}
		delete(sc.states, dc)
	}
}

// connClosed reports whether the driver connection was closed, read under
// the driver's own connection lock (engine.Open checks the layout and says
// "closed" once the driver zeroed its pointer).
func connClosed(dc any) bool {
	l, ok := dc.(sync.Locker)
	if !ok {
		return false
	}
	l.Lock()
	defer l.Unlock()
	_, err := engine.Open(dc)
	return err != nil
}

// ensureQueryOnly re-asserts query_only without writing the flag when it
// is already set: writing it would expire every cached statement. The flag
// is read where SQLite keeps it (engine.Handle.QueryOnly), not by stepping
// "PRAGMA query_only", which SQLite recompiles on every step
// (docs/decisions.md#per-call-costs).
func (cs *connState) ensureQueryOnly(h engine.Handle) error {
	if h.QueryOnly() {
		return nil
	}
	return h.Exec("PRAGMA query_only = 1")
}

// get returns the cached statement for sql, most recently used first.
func (cs *connState) get(sql string) *cachedStmt {
	if cs.off {
		return nil
	}
	e := cs.byKey[sql]
	if e != nil {
		cs.lru.MoveToFront(e.elem)
	}
	return e
}

// seenBefore reports whether sql was compiled on this connection recently,
// and remembers it.
func (cs *connState) seenBefore(sql string) bool {
	if cs.off {
		return false
	}
	h := maphash.String(seenSeed, sql)
	if cs.seen[h] {
		return true
	}
	if cs.seen == nil {
		cs.seen = make(map[uint64]bool, stmtCacheSeen)
	}
	if len(cs.seen) >= stmtCacheSeen {
		delete(cs.seen, cs.seenRing[cs.seenNext])
	}
	cs.seen[h] = true
	cs.seenRing[cs.seenNext] = h
	cs.seenNext = (cs.seenNext + 1) % stmtCacheSeen
	return false
}

var seenSeed = maphash.MakeSeed()

// put keeps st under sql when it is a plain read and fits the bounds; it
// reports whether the cache took the statement (the caller then must not
// finalize it).
func (cs *connState) put(c *call, sql string, st engine.Stmt) *cachedStmt {
	if st.Empty() || cs.off || !onlyReads(c) {
		return nil
	}
	size := len(sql) + st.MemUsed()
	if size > stmtCacheMaxEntry {
		return nil
	}
	for cs.lru.Len() >= stmtCacheEntries || (cs.lru.Len() > 0 && cs.bytes+size > stmtCacheBytes) {
		cs.drop(cs.lru.Back().Value.(*cachedStmt))
	}
	e := &cachedStmt{sql: sql, st: st, bytes: size, reprep: st.Reprepares(), inspects: 1}
	e.elem = cs.lru.PushFront(e)
	cs.byKey[sql] = e
	cs.bytes += size
	return e
}

// drop finalizes and forgets e.
func (cs *connState) drop(e *cachedStmt) {
	e.st.Finalize()
	cs.lru.Remove(e.elem)
	delete(cs.byKey, e.sql)
	cs.bytes -= e.bytes
}

// onlyReads reports whether the statement's authorizer saw reads only.
func onlyReads(c *call) bool {
	const reads = 1<<uint(domain.ActionSelect) | 1<<uint(domain.ActionRead) |
		1<<uint(domain.ActionFunction) | 1<<uint(domain.ActionRecursive)
	return c.seen != 0 && c.seen&^reads == 0
}
