package streamhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Two protocol eras share /mcp. Up to 2025-11-25 a client opens a session
// with initialize and sends its Mcp-Session-Id with every later message;
// from 2026-07-28 on there is no handshake and each request carries its
// protocol version (the MCP-Protocol-Version header and _meta) and the
// client's capabilities and identity. The SDK serves the second era only
// from a stateless handler, so each request goes to the handler of its era
// (docs/decisions.md#both-protocol-eras-on-one-endpoint).
const (
	// protocolStateless is the first revision without sessions.
	protocolStateless = "2026-07-28"
	// methodDiscover is the stateless era's first request.
	methodDiscover = "server/discover"
	// metaProtocolVersion, metaClientInfo are the per-request _meta keys.
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	// headerProtocolVersion names the revision a request speaks.
	headerProtocolVersion = "MCP-Protocol-Version"
)

// statelessHeader reports whether the request's MCP-Protocol-Version header
// names a stateless revision.
func statelessHeader(r *http.Request) bool {
	return r.Header.Get(headerProtocolVersion) >= protocolStateless
}

// statelessMessage reports whether a decoded message speaks the stateless
// era: server/discover, or a request whose _meta names a protocol version.
func statelessMessage(req frame.Request, ok bool) bool {
	if !ok {
		return false
	}
	if req.Method == methodDiscover {
		return true
	}
	m := requestMeta(req)
	_, ok = m[metaProtocolVersion]
	return ok
}

// requestMeta is a request's params._meta, nil when it has none.
func requestMeta(req frame.Request) map[string]json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(req.Params) == 0 || json.Unmarshal(req.Params, &p) != nil {
		return nil
	}
	return p.Meta
}

// serveStateless hands a stateless-era request to the SDK's stateless
// handler, at most --max-sessions at once: each holds a temporary session
// for the life of its POST (a subscriptions/listen stream for as long as
// it listens), which is what a session costs in the session era.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request) {
	select {
	case h.statelessSlots <- struct{}{}:
		defer func() { <-h.statelessSlots }()
	default:
		h.refusals.warn("refused a stateless request: --max-sessions stateless requests are in flight", "max_sessions", h.opts.MaxSessions)
		w.Header().Set("Retry-After", "5")
		httpRefuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("too many requests: %d stateless requests are in flight (--max-sessions); retry when one is done, or raise --max-sessions", h.opts.MaxSessions))
		return
	}
	h.statelessHTTP.ServeHTTP(w, r)
}

// statelessMiddleware gives a call without a session (the stateless era)
// the audit session id of its client: the clientInfo the request declares
// in _meta and the subject of its access token name the client, and the
// server makes the id, so one client's calls share an id across requests
// as a session's calls do.
func (h *Handler) statelessMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() == "" && ports.SessionFrom(ctx) == "" {
			var info *mcp.Implementation
			if r, ok := req.(*mcp.CallToolRequest); ok {
				info = mcpserver.ClientInfo(r)
			}
			ctx = ports.WithSession(ctx, h.clients.of(clientKey(info, grantOf(req.GetExtra()).Subject)))
		}
		return next(ctx, method, req)
	}
}

// clientKey names a stateless client: its declared name and version and
// its token's subject ("" without OAuth).
func clientKey(info *mcp.Implementation, subject string) string {
	k := "\x00" + subject
	if info != nil {
		k = info.Name + "\x00" + info.Version + k
	}
	return k
}

// clientKeyOf is clientKey for a request the HTTP front answers itself.
func clientKeyOf(req frame.Request, ok bool, subject string) string {
	var info *mcp.Implementation
	if ok {
		if raw, ok := requestMeta(req)[metaClientInfo]; ok {
			_ = json.Unmarshal(raw, &info)
		}
	}
	return clientKey(info, subject)
}

// maxClients bounds the stateless clients remembered; past it the one
// seen longest ago is forgotten (its next call gets a new id).
const maxClients = 256

// clientIDs maps stateless clients to audit session ids made by the
// server (sessionIDs.fresh: the process session id format, unique among
// the process's sessions and clients).
type clientIDs struct {
	fresh func() string
	mu    sync.Mutex
	ids   map[string]string
	seen  map[string]time.Time
}

func newClientIDs(fresh func() string) *clientIDs {
	return &clientIDs{fresh: fresh, ids: map[string]string{}, seen: map[string]time.Time{}}
}

// of returns the client's audit id, making one on first sight.
func (c *clientIDs) of(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[key] = time.Now()
	if id, ok := c.ids[key]; ok {
		return id
	}
	if len(c.ids) >= maxClients {
		oldest := ""
		for k, t := range c.seen {
			if k != key && (oldest == "" || t.Before(c.seen[oldest])) {
				oldest = k
			}
		}
		delete(c.ids, oldest)
		delete(c.seen, oldest)
	}
	id := c.fresh()
	c.ids[key] = id
	return id
}
