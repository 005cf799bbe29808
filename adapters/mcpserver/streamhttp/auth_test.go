package streamhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/streamhttp"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// stubVerifier grants each known token its scopes; "down" is an
// unreachable authorization server, anything else an invalid token.
type stubVerifier map[string][]string

func (v stubVerifier) Verify(_ context.Context, token string) (domain.Grant, error) {
	if token == "huge" { // an error echoing a huge claim of the token
		return domain.Grant{}, domain.Errorf(domain.ErrInvalidArgument, "invalid_token: aud %q", strings.Repeat("A", 50_000))
	}
	if token == "down" {
		return domain.Grant{}, domain.Errorf(domain.ErrUnavailable, "the authorization server's keys could not be fetched")
	}
	scopes, ok := v[token]
	if !ok {
		return domain.Grant{}, domain.Errorf(domain.ErrInvalidArgument, `invalid_token: the token expired at 2026-01-01T00:00:00Z; get a "new" one`)
	}
	return domain.NewGrant("user-"+token, scopes, time.Now().Add(time.Hour)), nil
}

const (
	testIssuer   = "https://auth.example.com"
	testResource = "https://db.example.com/mcp"
)

func oauthOptions() streamhttp.Options {
	return streamhttp.Options{OAuth: &streamhttp.OAuthOptions{
		Verifier: stubVerifier{"reader": {domain.ScopeRead}, "writer": {domain.ScopeWrite}, "all": domain.Scopes()},
		Issuer:   testIssuer, Resource: testResource,
	}}
}

// bearerClient sends token with every request.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// post sends one JSON-RPC body to /mcp in the stateless era.
func post(t *testing.T, url, token, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp, string(b)
}

const callWrite = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_query","arguments":{"query":"CREATE TABLE t(x)"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`

// Requests without a valid token are refused with 401 and the header the
// MCP authorization spec describes, run nothing, and are audited.
func TestHTTPOAuthRefusesRequestsWithoutAValidToken(t *testing.T) {
	tools := &auditTools{}
	url := serveHTTP(t, tools, oauthOptions())
	meta := `resource_metadata="https://db.example.com/.well-known/oauth-protected-resource/mcp"`

	resp, body := post(t, url, "", callWrite)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer `+meta+`, scope="sqlite:read sqlite:write sqlite:destructive"`, resp.Header.Get("WWW-Authenticate"))
	assert.Contains(t, body, testIssuer)

	resp, body = post(t, url, "forged", callWrite)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer error="invalid_token", error_description="invalid_token: the token expired at 2026-01-01T00:00:00Z; get a 'new' one", `+meta, resp.Header.Get("WWW-Authenticate"))
	assert.Contains(t, body, "expired")

	resp, _ = post(t, url, "down", callWrite)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))

	// The static token of simple setups is no OAuth token.
	resp, _ = post(t, url, "0123456789abcdef-token", callWrite)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	// A refusal's row has a bounded size, whatever the token holds.
	resp, _ = post(t, url, "huge", callWrite)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	_, rejected := tools.last()
	require.Error(t, rejected)
	assert.Less(t, len(rejected.Error()), 1000)
	assert.Less(t, len(resp.Header.Get("WWW-Authenticate")), 1000)

	sessions, rejects := tools.seen()
	assert.Equal(t, []string{"http", "http", "http", "http", "http"}, rejects, "each refusal is audited, under no tool")
	assert.Len(t, sessions, 5, "and nothing ran")
	tool, _ := tools.last()
	assert.Equal(t, "http", tool)
}

// An unauthenticated flood writes a bounded number of audit rows.
func TestHTTPOAuthRefusalRowsAreBounded(t *testing.T) {
	tools := &auditTools{}
	url := serveHTTP(t, tools, oauthOptions())
	for range 60 {
		resp, _ := post(t, url, "forged", callWrite)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	}
	_, rejects := tools.seen()
	assert.Less(t, len(rejects), 30, "at most the refusal log's burst plus its rate")
	assert.NotEmpty(t, rejects)
}

// The protected resource metadata (RFC 9728) names the issuer and the
// tiers' scopes, at the resource's well-known path and the bare one.
func TestHTTPOAuthServesProtectedResourceMetadata(t *testing.T) {
	url := strings.TrimSuffix(serveHTTP(t, &auditTools{}, oauthOptions()), "/mcp")
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(url + path)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, testResource, m["resource"])
		assert.Equal(t, []any{testIssuer}, m["authorization_servers"])
		assert.Equal(t, []any{"sqlite:read", "sqlite:write", "sqlite:destructive"}, m["scopes_supported"])
		assert.Equal(t, []any{"header"}, m["bearer_methods_supported"])
	}
}

// A token sees and calls only the tools of the tiers its scopes grant, in
// both protocol eras; a call beyond them gets 403 insufficient_scope,
// runs nothing and is audited under its tool.
func TestHTTPOAuthScopesLimitTheTools(t *testing.T) {
	tools := &auditTools{}
	url := serveHTTP(t, tools, oauthOptions())
	names := func(tier domain.Tier) []string {
		var out []string
		for _, d := range domain.OfferedTools(false, false) {
			if d.Tier == tier {
				out = append(out, d.Name)
			}
		}
		return out
	}
	for _, era := range []string{"", "2025-11-25"} {
		for token, want := range map[string][]string{
			"reader": names(domain.TierRead),
			"writer": names(domain.TierWrite),
			"all":    append(append(names(domain.TierRead), names(domain.TierWrite)...), names(domain.TierDestructive)...),
		} {
			cs := connectHTTP(t, url, "scoped", era, bearerClient(token))
			l, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var got []string
			for _, tl := range l.Tools {
				got = append(got, tl.Name)
			}
			slices.Sort(got)
			slices.Sort(want)
			assert.Equal(t, want, got, "era %q token %s", era, token)
			if era == "" {
				assert.Equal(t, "private", l.CacheScope, "the list depends on the token")
			}
		}
	}

	resp, body := post(t, url, "reader", callWrite)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Equal(t, `Bearer error="insufficient_scope", scope="sqlite:read sqlite:write", `+
		`resource_metadata="https://db.example.com/.well-known/oauth-protected-resource/mcp", error_description="write_query needs sqlite:write"`,
		resp.Header.Get("WWW-Authenticate"))
	assert.Contains(t, body, `"id":3`)
	assert.Contains(t, body, "insufficient_scope")
	tool, rejected := tools.last()
	assert.Equal(t, domain.ToolWriteQuery, tool, "audited under the tool")
	assert.ErrorIs(t, rejected, domain.ErrPolicy)

	// The session era's client gets the refusal as an error too, and
	// the write never runs.
	cs := connectHTTP(t, url, "scoped", "2025-11-25", bearerClient("reader"))
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: domain.ToolWriteQuery, Arguments: map[string]any{"query": "CREATE TABLE t(x)"}})
	assert.Error(t, err)
	for _, s := range tools.sessionsOfWrites() {
		t.Errorf("write_query ran in session %s", s)
	}

	// A scope held is a call made.
	cs = connectHTTP(t, url, "scoped", "", bearerClient("writer"))
	out, isErr := stubCall(t, cs, domain.ToolWriteQuery, map[string]any{"query": "CREATE TABLE t(x)"})
	assert.False(t, isErr, out)
	assert.Len(t, tools.sessionsOfWrites(), 1)
}

// A session opened with one user's token cannot be used with another's:
// the SDK ties the session to the token's issuer and subject.
func TestHTTPOAuthSessionBelongsToItsTokensSubject(t *testing.T) {
	tools := &auditTools{}
	url := serveHTTP(t, tools, oauthOptions())
	cs := connectHTTP(t, url, "owner", "2025-11-25", bearerClient("reader"))
	require.NotEmpty(t, cs.ID())
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Authorization", "Bearer all") // another subject's valid token
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}
