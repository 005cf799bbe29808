package streamhttp

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
)

// Refusal log lines: at most refusalBurst at once, then one per
// refusalEvery. Anyone who can reach the port can send refused requests
// (a wrong token, a foreign Host, an oversized body) as fast as the
// network carries them; logging each would let them fill the operator's
// disk or drown the lines that matter.
const (
	refusalBurst = 10
	refusalEvery = time.Second
)

// refusalLog logs refused HTTP requests at a bounded rate. A line logged
// after some were dropped says how many ("suppressed"), so the count of
// refusals is never lost, only their detail.
type refusalLog struct {
	log *slog.Logger
	now func() time.Time // the limiter's clock (tests set it)

	mu      sync.Mutex
	lim     *rate.Limiter
	dropped int64
}

func newRefusalLog(log *slog.Logger) *refusalLog {
	return &refusalLog{log: log, now: time.Now, lim: rate.NewLimiter(rate.Every(refusalEvery), refusalBurst)}
}

// warn logs msg with attrs, unless the rate is exceeded; it returns the
// number of lines dropped before this one, or -1 when it dropped this one.
func (l *refusalLog) warn(msg string, attrs ...any) int64 {
	l.mu.Lock()
	if !l.lim.AllowN(l.now(), 1) {
		l.dropped++
		l.mu.Unlock()
		return -1
	}
	dropped := l.dropped
	l.dropped = 0
	l.mu.Unlock()
	if dropped > 0 {
		attrs = append(attrs, "suppressed", dropped)
	}
	l.log.Warn(msg, attrs...)
	return dropped
}

// refuseUnknownSession answers a request naming a session that is not
// open with 404, as MCP asks (the client then opens a new session), and a
// JSON-RPC error whose message says what happened and what to do, whatever
// the method: a person reading the body learns why.
func refuseUnknownSession(w http.ResponseWriter) {
	msg := "404 Not Found: unknown session: the Mcp-Session-Id header names no open session of this server. " +
		"A session ends when it is idle for --session-idle-timeout, when a new session needs its place at --max-sessions " +
		"(the one idle longest is closed), when the client deletes it, or when the server restarts; " +
		"send initialize again (without Mcp-Session-Id) to open a new session"
	b, _ := frame.Reply(nil, nil, frame.CodeInvalidRequest, msg)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(b)
}

// sessionOpen reports whether an MCP session with this id is open.
func (h *Handler) sessionOpen(id string) bool {
	for ss := range h.s.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}
