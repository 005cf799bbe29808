package streamhttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Options configure the Streamable HTTP front end.
type Options struct {
	// Token is the bearer token every /mcp request must carry; "" means
	// no authentication (allowed only on a loopback address, which the
	// caller checks).
	Token string
	// Hosts are the host names (no port) allowed in the Host header and in
	// the Origin header, besides loopback names: the bound address's host
	// and the names given with --allowed-hosts.
	Hosts []string
	// MaxSessions bounds the MCP sessions open at once; <= 0 means 16.
	MaxSessions int
	// IdleTimeout closes a session that sends no request for this long;
	// <= 0 never closes one.
	IdleTimeout time.Duration
	// OAuth, when set, takes OAuth access tokens instead of Token (which
	// must then be "").
	OAuth *OAuthOptions
}

// Handler serves MCP over Streamable HTTP at /mcp with the SDK's own
// handler, and GET /healthz. In front of the SDK it checks, in order: the
// Host and Origin headers (DNS rebinding), the bearer token, the session
// (an unknown one gets 404), the body size, the frame rules of the stdio
// guard (classify) and the session limit. Refusals are logged at a bounded
// rate (refusals.go).
// Every refused request gets a status and a body that says what to do, and
// nothing runs.
type Handler struct {
	s   *mcpserver.Server
	sdk *mcp.StreamableHTTPHandler // the session era
	// stateless serves the 2026-07-28 era (eras.go); statelessSlots
	// bounds its requests in flight.
	stateless      *mcp.StreamableHTTPHandler
	statelessSlots chan struct{}
	// sdkHTTP and statelessHTTP are the two, behind the SDK's bearer
	// middleware with OAuth (auth.go).
	sdkHTTP, statelessHTTP http.Handler
	tiers                  map[string]domain.Tier // each tool's tier, for scopes
	clients                *clientIDs             // audit ids of stateless clients
	opts                   Options
	token                  [sha256.Size]byte
	hosts                  map[string]bool
	mux                    *http.ServeMux
	posts                  atomic.Int64 // POST requests in flight (Drain)
	newSess                atomic.Int64 // POSTs in flight that may open a session
	sessions               *sessionIDs  // audit ids and activity of the sessions (sessions.go)
	refusals               *refusalLog  // log lines of refused requests, rate-bounded (refusals.go)
}

var _ http.Handler = (*Handler)(nil)

// New returns the server's HTTP front end. Every MCP session it
// opens shares the server's tools and so the core's process-wide bounds
// (call and search slots, SQLite's heap, the write lock, the audit
// commits); each gets its own session id for events and audit rows.
func New(s *mcpserver.Server, o Options) *Handler {
	if o.MaxSessions <= 0 {
		o.MaxSessions = 16
	}
	if o.OAuth != nil && o.Token != "" {
		panic("mcpserver: Options has both a static token and OAuth; the caller refuses the combination")
	}
	so := s.Options()
	max := so.Limits.MaxRequestBytes
	if max <= 0 {
		max = domain.DefaultLimits().MaxRequestBytes
	}
	h := &Handler{s: s, opts: o, token: sha256.Sum256([]byte(o.Token)), hosts: map[string]bool{}, sessions: newSessionIDs(),
		refusals: newRefusalLog(so.Log)}
	for _, n := range o.Hosts {
		if n = normHost(n); n != "" {
			h.hosts[n] = true
		}
	}
	s.SetSessionIDs(func(id string) string { return h.sessions.of(id, h.open) })
	h.clients = newClientIDs(h.sessions.fresh)
	h.tiers = map[string]domain.Tier{}
	for _, d := range domain.Tools() {
		h.tiers[d.Name] = d.Tier
	}
	server := func(*http.Request) *mcp.Server { return s.Server }
	h.sdk = mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		SessionTimeout:      o.IdleTimeout,
		MaxRequestBodyBytes: int64(max),
		Logger:              so.Logger,
		// Our own Host check (checkHost) is this one's superset, and
		// unlike it lets --allowed-hosts through on a loopback listener.
		DisableLocalhostProtection: len(h.hosts) > 0,
	})
	h.stateless = mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		MaxRequestBodyBytes:        int64(max),
		Logger:                     so.Logger,
		DisableLocalhostProtection: len(h.hosts) > 0,
		// A stateless request's POST is its whole life: a client that
		// hangs up cancels its call, as notifications/cancelled does in
		// a session.
		PropagateRequestCancellation: true,
	})
	h.statelessSlots = make(chan struct{}, o.MaxSessions)
	h.sdkHTTP, h.statelessHTTP = h.sdk, h.stateless
	s.AddReceivingMiddleware(h.statelessMiddleware)
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			httpRefuse(w, r, http.StatusMethodNotAllowed, "/healthz answers GET only")
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	h.mux.HandleFunc("/mcp", h.serveMCP)
	if o.OAuth != nil {
		h.routeOAuth()
	}
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpRefuse(w, r, http.StatusNotFound, "not found: MCP is served at /mcp (and GET /healthz)")
	})
	return h
}

// ServeHTTP checks Host and Origin on every path, then routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if why := h.checkHost(r); why != "" {
		h.refusals.warn("refused an HTTP request", "status", http.StatusForbidden, "why", why)
		httpRefuse(w, r, http.StatusForbidden, why)
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) serveMCP(w http.ResponseWriter, r *http.Request) {
	if r = h.authenticate(w, r); r == nil {
		return
	}
	// A stateless-era request never has a session; one that names a
	// stale session id is still served.
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && !statelessHeader(r) && !h.sessionOpen(sid) {
		h.refusals.warn("refused an HTTP request", "status", http.StatusNotFound, "why", "unknown session (ended or never opened)")
		refuseUnknownSession(w)
		return
	}
	if r.Method != http.MethodPost {
		if statelessHeader(r) {
			h.statelessHTTP.ServeHTTP(w, r) // no GET stream or DELETE in this era: 405
			return
		}
		h.sdkHTTP.ServeHTTP(w, r)
		return
	}
	h.posts.Add(1)
	defer h.posts.Add(-1)
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	check := frame.Classify(bytes.TrimSpace(body), h.s.Offers)
	if !check.Passed() {
		h.answerRefusal(w, r, check.Refusal())
		return
	}
	req, isReq := check.Request()
	if !h.checkScope(w, r, req, isReq) {
		return
	}
	if statelessHeader(r) || statelessMessage(req, isReq) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.serveStateless(w, r)
		return
	}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		done := h.sessions.busy(sid)
		defer done()
	} else if !isReq || req.Method != methodInitialize {
		// The SDK would open a session for any message without a session
		// id and close it after the request. Such a session, counted
		// against --max-sessions but never idle, made a concurrent
		// initialize fail with 503; MCP says a server that needs session
		// ids answers these with 400.
		httpRefuse(w, r, http.StatusBadRequest, "this message has no Mcp-Session-Id header: send initialize first, then "+
			"send the session id it returns with every later message; or speak protocol "+protocolStateless+
			" (no initialize: the MCP-Protocol-Version header and _meta on every request)")
		return
	} else if !h.admit(w, r) {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	h.sdkHTTP.ServeHTTP(w, r)
	if r.Header.Get("Mcp-Session-Id") == "" {
		if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
			h.sessions.opened(sid) // its activity starts now
		}
	}
}

// admit makes room for a new session: at --max-sessions open, it closes
// the one idle longest (no request in flight), as its idle timeout would
// later; when every session is busy it refuses with 503.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request) bool {
	n := h.newSess.Add(1)
	defer h.newSess.Add(-1)
	var open []*mcp.ServerSession
	for ss := range h.s.Sessions() {
		if ss.ID() != "" { // a stateless request's session has no id
			open = append(open, ss)
		}
	}
	h.sessions.prune(open)
	for len(open)+int(n) > h.opts.MaxSessions {
		victim := h.sessions.idlest(open)
		if victim == nil {
			h.refusals.warn("refused a new session: every open session is busy (--max-sessions)", "open", len(open), "opening", n, "max_sessions", h.opts.MaxSessions)
			w.Header().Set("Retry-After", "5")
			httpRefuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("too many sessions: %d MCP sessions are open and busy (--max-sessions); retry when one is done, or raise --max-sessions", len(open)))
			return false
		}
		h.s.Options().Log.Warn("closed the session idle longest to open a new one (--max-sessions)", "session", h.sessions.lookup(victim.ID()), "max_sessions", h.opts.MaxSessions)
		_ = victim.Close()
		open = slices.DeleteFunc(open, func(ss *mcp.ServerSession) bool { return ss == victim })
	}
	return true
}

// methodInitialize opens an MCP session.
const methodInitialize = "initialize"

// sessionContext is the request's context naming its MCP session's audit
// id, when the session has one.
func (h *Handler) sessionContext(r *http.Request) context.Context {
	if id := h.sessions.lookup(r.Header.Get("Mcp-Session-Id")); id != "" {
		return ports.WithSession(r.Context(), id)
	}
	return r.Context()
}

// open is the set of MCP sessions open now.
func (h *Handler) open() map[string]bool {
	open := map[string]bool{}
	for o := range h.s.Sessions() {
		open[o.ID()] = true
	}
	return open
}

// answerRefusal answers a POST body the stdio guard would refuse, the way
// the guard answers it: a tool call as a tool error (audited under the
// request's session), anything else as a JSON-RPC error.
func (h *Handler) answerRefusal(w http.ResponseWriter, r *http.Request, rf frame.Refusal) {
	reply := h.s.AnswerRefusal(h.sessionContext(r), rf)
	if reply == nil {
		httpRefuse(w, r, http.StatusBadRequest, "refused: "+rf.Reason())
		return
	}
	// An answer under the request's id is the request's answer, as the SDK
	// would give it (200); one under id null says the message was not
	// understood (400).
	status := http.StatusBadRequest
	if rf.ID() != nil {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(reply)
}

// authorized compares the bearer token in constant time (SHA-256 of both,
// so not even the length leaks). An empty token after the scheme hashes
// to a value no configured token (16+ characters) has.
func (h *Handler) authorized(r *http.Request) bool {
	if h.opts.Token == "" {
		return true
	}
	// The scheme's name is case-insensitive (RFC 7235: "bearer" and
	// "BEARER" are "Bearer"); the token is compared exactly.
	scheme, got, ok := strings.Cut(strings.TrimLeft(r.Header.Get("Authorization"), " \t"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
}

// Drain waits until no POST request is in flight (every tool call has
// been answered), or ctx ends. The caller has stopped accepting
// connections first.
func (h *Handler) Drain(ctx context.Context) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for h.posts.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// CloseSessions ends every MCP session, which ends their event streams.
func (h *Handler) CloseSessions() {
	var open []*mcp.ServerSession
	for ss := range h.s.Sessions() {
		open = append(open, ss)
	}
	for _, ss := range open {
		_ = ss.Close()
	}
}

// httpRefuse writes a refusal: to a POST, a JSON-RPC error (id null; MCP
// clients show its message and keep the session), otherwise plain text.
func httpRefuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	text := strconv.Itoa(status) + " " + http.StatusText(status) + ": " + msg
	if r.Method == http.MethodPost {
		if b, err := frame.Reply(nil, nil, frame.CodeInvalidRequest, text); err == nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write(b)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text+"\n")
}
