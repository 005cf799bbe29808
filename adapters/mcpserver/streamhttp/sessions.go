package streamhttp

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// newSessionID is a session id in the process session id format
// (domain.NewSessionID).
func newSessionID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return domain.NewSessionID(now, b)
}

// sessionIDs maps MCP session ids (the Mcp-Session-Id header, a secret
// the client holds) to the ids the audit log and events carry (the
// process session id format, unique among the sessions of this process),
// and records when each session was last busy.
type sessionIDs struct {
	mu    sync.Mutex
	byMCP map[string]string
	seen  map[string]*activity
	sec   int64           // the second of the ids in used
	used  map[string]bool // ids given out in that second
}

// activity is a session's requests in flight and the end of its last one.
type activity struct {
	active int
	last   time.Time
}

func newSessionIDs() *sessionIDs {
	return &sessionIDs{byMCP: map[string]string{}, seen: map[string]*activity{}, used: map[string]bool{}}
}

// lookup returns the audit id of an MCP session, "" when it has none yet.
func (m *sessionIDs) lookup(mcpID string) string {
	if mcpID == "" {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byMCP[mcpID]
}

// opened starts recording a new session's activity.
func (m *sessionIDs) opened(mcpID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen[mcpID] == nil {
		m.seen[mcpID] = &activity{last: time.Now()}
	}
}

// busy records a request of the session in flight; the returned function
// ends it. An id never opened is not recorded.
func (m *sessionIDs) busy(mcpID string) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.seen[mcpID]
	if a == nil {
		return func() {}
	}
	a.active++
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		a.active--
		a.last = time.Now()
	}
}

// idlest returns the open session idle longest with no request in flight,
// or nil. Sessions not seen yet are being opened and never chosen.
func (m *sessionIDs) idlest(open []*mcp.ServerSession) *mcp.ServerSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best *mcp.ServerSession
	var bestLast time.Time
	for _, ss := range open {
		a := m.seen[ss.ID()]
		if a == nil || a.active > 0 {
			continue
		}
		if best == nil || a.last.Before(bestLast) {
			best, bestLast = ss, a.last
		}
	}
	return best
}

// prune forgets the sessions that are not open any more.
func (m *sessionIDs) prune(open []*mcp.ServerSession) {
	live := map[string]bool{}
	for _, ss := range open {
		live[ss.ID()] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forget(live)
}

// forget drops what is kept about sessions no longer open; m.mu is held.
func (m *sessionIDs) forget(live map[string]bool) {
	for k, a := range m.seen {
		if !live[k] && a.active == 0 {
			delete(m.seen, k)
		}
	}
	for k := range m.byMCP {
		if !live[k] {
			delete(m.byMCP, k)
		}
	}
}

// of returns the audit id of an MCP session, giving it one on first use;
// live lists the sessions still open, so closed ones are forgotten.
func (m *sessionIDs) of(mcpID string, live func() map[string]bool) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id, ok := m.byMCP[mcpID]; ok {
		return id
	}
	if len(m.byMCP) >= 64 {
		m.forget(live())
	}
	id := m.freshLocked()
	m.byMCP[mcpID] = id
	return id
}

// fresh returns an audit id no other session or stateless client of this
// process has.
func (m *sessionIDs) fresh() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.freshLocked()
}

// freshLocked is fresh with m.mu held.
func (m *sessionIDs) freshLocked() string {
	now := time.Now()
	if now.Unix() != m.sec { // ids embed their second: older ones cannot recur
		m.sec = now.Unix()
		clear(m.used)
	}
	id := newSessionID(now)
	for m.used[id] {
		id = newSessionID(now)
	}
	m.used[id] = true
	return id
}
