package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// TokenVerifier verifies an OAuth access token and returns what it grants
// (adapters/oauth). An invalid token is a *domain.Error of any kind but
// domain.ErrUnavailable, which says the authorization server could not be
// asked (the request may be retried).
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (domain.Grant, error)
}

// OAuthOptions make the HTTP front end an OAuth 2.1 resource server, as
// the MCP authorization spec asks: every /mcp request carries an access
// token from Issuer meant for Resource, and the token's scopes decide
// which tiers' tools it sees and calls.
type OAuthOptions struct {
	// Verifier checks the tokens.
	Verifier TokenVerifier
	// Issuer is the authorization server, published in the protected
	// resource metadata.
	Issuer string
	// Resource is this server's resource identifier (the tokens'
	// audience), e.g. https://db.example.com/mcp.
	Resource string
}

// grantInfo is the key of a verified grant in auth.TokenInfo.Extra, by
// which the grant reaches the SDK's handlers (RequestExtra.TokenInfo).
const grantInfo = "mcp-sqlite-memory/grant"

// grantKey carries a verified *auth.TokenInfo in a request's context from
// the front end's check to the SDK's bearer middleware.
type grantKey struct{}

// grantOf is the grant of a request's verified token; the zero grant
// without OAuth.
func grantOf(extra *mcp.RequestExtra) domain.Grant {
	if extra == nil || extra.TokenInfo == nil {
		return domain.Grant{}
	}
	g, _ := extra.TokenInfo.Extra[grantInfo].(domain.Grant)
	return g
}

// metadataPath is where RFC 9728 puts the metadata of a resource: the
// well-known prefix, then the resource's path.
func metadataPath(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return "/.well-known/oauth-protected-resource"
	}
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/")
}

// metadataURL is the absolute URL of the resource's metadata.
func (o *OAuthOptions) metadataURL() string {
	u, err := url.Parse(o.Resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + metadataPath(o.Resource)
}

// routeOAuth serves the protected resource metadata (RFC 9728) at its
// well-known path and at the bare prefix, and wraps the SDK's handlers so
// a verified token reaches its tools as auth.TokenInfo (and the SDK ties a
// session to the token's subject).
func (h *Handler) routeOAuth() {
	o := h.opts.OAuth
	meta := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: o.Resource, AuthorizationServers: []string{o.Issuer}, ScopesSupported: domain.Scopes(),
		BearerMethodsSupported: []string{"header"}, ResourceName: mcpserver.Name,
	})
	h.mux.Handle(metadataPath(o.Resource), meta)
	if p := metadataPath(o.Resource); p != "/.well-known/oauth-protected-resource" {
		h.mux.Handle("/.well-known/oauth-protected-resource", meta)
	}
	passed := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := ctx.Value(grantKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken // not reached: the front end checked first
	}
	// The front end has checked exp with the verifier's skew already.
	mw := auth.RequireBearerToken(passed, &auth.RequireBearerTokenOptions{ClockSkew: 10 * time.Minute})
	h.sdkHTTP, h.statelessHTTP = mw(h.sdk), mw(h.stateless)
	h.s.AddReceivingMiddleware(h.scopeMiddleware)
}

// bearer is the request's bearer token, "" when it has none. The scheme's
// name is case-insensitive (RFC 7235).
func bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(strings.TrimLeft(r.Header.Get("Authorization"), " \t"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// authenticate checks the request's credentials: the static token, or an
// OAuth access token. It returns the request carrying the verified grant,
// or answers the refusal (audited at a bounded rate) and returns nil.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) *http.Request {
	o := h.opts.OAuth
	if o == nil {
		if h.authorized(r) {
			return r
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+mcpserver.Name+`"`)
		h.refuseAuth(w, r, http.StatusUnauthorized, "missing or wrong bearer token",
			"unauthorized: send the header \"Authorization: Bearer <token>\" with the token the server was started with (--auth-token-file or MCP_SQLITE_AUTH_TOKEN)")
		return nil
	}
	tok := bearer(r)
	if tok == "" {
		// No error code when the request has no token: RFC 6750 gives one
		// only to a request that sent credentials.
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, o.metadataURL(), strings.Join(domain.Scopes(), " ")))
		h.refuseAuth(w, r, http.StatusUnauthorized, "no access token",
			"unauthorized: this server takes OAuth access tokens from "+o.Issuer+"; send \"Authorization: Bearer <access token>\" (the WWW-Authenticate header names the metadata that says how to get one)")
		return nil
	}
	g, err := o.Verifier.Verify(r.Context(), tok)
	if errors.Is(err, domain.ErrUnavailable) {
		w.Header().Set("Retry-After", "30")
		h.refuseAuth(w, r, http.StatusServiceUnavailable, "authorization server unavailable: "+headerSafe(err.Error()), "the access token could not be checked: "+err.Error())
		return nil
	}
	if err != nil {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", error_description=%q, resource_metadata=%q`, headerSafe(err.Error()), o.metadataURL()))
		h.refuseAuth(w, r, http.StatusUnauthorized, "invalid access token: "+headerSafe(err.Error()), "unauthorized: "+err.Error())
		return nil
	}
	ti := &auth.TokenInfo{Scopes: g.Scopes(), Expiration: g.Expiry, UserID: o.Issuer + " " + g.Subject, Extra: map[string]any{grantInfo: g}}
	return r.WithContext(context.WithValue(r.Context(), grantKey{}, ti))
}

// headerSafe makes s a quoted-string's safe content: printable ASCII
// without quotes or backslashes, at most 200 bytes.
func headerSafe(s string) string {
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\'')
		case c >= 0x20 && c < 0x7f:
			out = append(out, c)
		}
		if len(out) >= 200 {
			break
		}
	}
	return string(out)
}

// refuseAuth answers a request refused before anything ran: the log line
// and an audit row (tool "http") at the refusal log's bounded rate, so a
// flood of unauthenticated requests grows neither the log nor the
// database without bound; a row written after some were dropped says how
// many. why is at most a few hundred bytes (the token's own claims are cut
// by headerSafe), so a row's size is bounded too.
func (h *Handler) refuseAuth(w http.ResponseWriter, r *http.Request, status int, why, msg string) {
	if dropped := h.refusals.warn("refused an HTTP request", "status", status, "why", why); dropped >= 0 {
		detail := fmt.Sprintf("refused an HTTP request with %d %s before it ran: %s (%s %s from %s)", status, http.StatusText(status), why, headerSafe(r.Method), r.URL.Path, r.RemoteAddr)
		if dropped > 0 {
			detail += fmt.Sprintf("; %d more refusals since the last row were not recorded one by one", dropped)
		}
		_ = h.s.Reject(r.Context(), auditHTTP, domain.Errorf(domain.ErrInvalidArgument, "%s", detail))
	}
	httpRefuse(w, r, status, msg)
}

// auditHTTP is the tool name of audit rows for requests refused at the
// HTTP layer, which name no tool.
const auditHTTP = "http"

// checkScope refuses a tools/call whose tool's tier the token's scopes do
// not grant, as the MCP spec's scope challenge asks: 403 with
// error="insufficient_scope" and the scopes to ask for (those held plus
// the tier's), a JSON-RPC error under the request's id, audited under the
// tool. It reports whether the call may go on.
func (h *Handler) checkScope(w http.ResponseWriter, r *http.Request, req frame.Request, isReq bool) bool {
	if h.opts.OAuth == nil {
		return true
	}
	if !isReq || req.ID == nil || req.Method != "tools/call" {
		return true
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(req.Params, &p)
	tier, ok := h.tiers[p.Name]
	ti, _ := r.Context().Value(grantKey{}).(*auth.TokenInfo)
	if !ok || ti == nil {
		return true // an unknown tool is the SDK's to refuse
	}
	g, _ := ti.Extra[grantInfo].(domain.Grant)
	if g.Allows(tier) {
		return true
	}
	want := append(g.Scopes(), tier.Scope())
	var err error = domain.Errorf(domain.ErrPolicy, "insufficient_scope: %s needs the scope %s, which this access token does not have (it has %q); ask %s for a token with scope %q",
		p.Name, tier.Scope(), strings.Join(g.Scopes(), " "), h.opts.OAuth.Issuer, strings.Join(want, " "))
	ctx := h.sessionContext(r)
	if statelessHeader(r) || statelessMessage(req, isReq) {
		ctx = ports.WithSession(r.Context(), h.clients.of(clientKeyOf(req, isReq, g.Subject)))
	}
	err = h.s.Reject(ctx, p.Name, err)
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q, error_description=%q`,
		strings.Join(want, " "), h.opts.OAuth.metadataURL(), headerSafe(p.Name+" needs "+tier.Scope())))
	b, rerr := frame.Reply(req.ID, nil, frame.CodeInvalidRequest, "403 Forbidden: "+err.Error())
	if rerr != nil {
		b = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}` + "\n")
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(b)
	return false
}

// scopeMiddleware keeps a token's tools to its tiers wherever a request
// reaches the SDK: tools/list shows only the tools whose tier its scopes
// grant, and a call of any other tool is a tool error (the front end
// answers those with 403 first; this is the second wall).
func (h *Handler) scopeMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		extra := req.GetExtra()
		if extra == nil || extra.TokenInfo == nil {
			return next(ctx, method, req)
		}
		g := grantOf(extra)
		switch method {
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok {
				if tier, ok := h.tiers[r.Params.Name]; ok && !g.Allows(tier) {
					return mcpserver.ToolError(domain.Errorf(domain.ErrPolicy, "insufficient_scope: %s needs the scope %s", r.Params.Name, tier.Scope())), nil
				}
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				l.Tools = slices.DeleteFunc(slices.Clone(l.Tools), func(t *mcp.Tool) bool { return !g.Allows(h.tiers[t.Name]) })
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}
