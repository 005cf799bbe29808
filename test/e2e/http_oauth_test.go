package e2e_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oauthIssuer is a local authorization server for the built binary: RFC
// 8414 metadata and a JWKS with one ES256 key, on a loopback port.
type oauthIssuer struct {
	srv *httptest.Server
	key *ecdsa.PrivateKey
}

func newOAuthIssuer(t *testing.T) *oauthIssuer {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	is := &oauthIssuer{key: k}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "e2e", Use: "sig", Algorithm: "ES256"}}})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

// token is an access token for aud with scope, valid from now for ttl
// (negative: expired).
func (is *oauthIssuer) token(t *testing.T, aud, scope string, ttl time.Duration) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "e2e"))
	require.NoError(t, err)
	now := time.Now()
	raw, err := jwt.Signed(s).Claims(jwt.Claims{Issuer: is.srv.URL, Subject: "e2e-user", Audience: jwt.Audience{aud},
		IssuedAt: jwt.NewNumericDate(now.Add(-2 * time.Hour)), Expiry: jwt.NewNumericDate(now.Add(ttl))}).
		Claims(map[string]any{"scope": scope}).Serialize()
	require.NoError(t, err)
	return raw
}

// The built binary as an OAuth resource server: tokens from the local
// issuer are checked (signature, audience, expiry), a token's scopes
// decide the tools it sees and calls in both protocol eras, and every
// refused request runs nothing and leaves a bounded audit row.
func TestHTTPOAuth(t *testing.T) {
	is := newOAuthIssuer(t)
	const aud = "http://127.0.0.1/mcp"
	db := filepath.Join(t.TempDir(), "m.db")
	s := httpStart(t, db, nil, "--oauth-issuer", is.srv.URL, "--oauth-audience", aud)

	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_query","arguments":{"query":"CREATE TABLE pwned(x)"}}}`
	status, _ := httpPost(t, s, call)
	assert.Equal(t, http.StatusUnauthorized, status)
	for name, tok := range map[string]string{
		"expired":        is.token(t, aud, "sqlite:write", -time.Hour),
		"wrong audience": is.token(t, "http://127.0.0.1/other", "sqlite:write", time.Hour),
	} {
		status, body := httpPost(t, s, httpInitialize, "Authorization", "Bearer "+tok)
		assert.Equal(t, http.StatusUnauthorized, status, name)
		assert.Contains(t, body, "invalid_token", name)
	}
	assert.Equal(t, 3, httpCount(t, db, "SELECT count(*) FROM query_log WHERE tool = 'http' AND ok = 0"), "each refusal is audited")
	assert.Zero(t, httpCount(t, db, "SELECT count(*) FROM query_log WHERE tool <> 'http'"), "and nothing ran")

	reader := is.token(t, aud, "sqlite:read", time.Hour)
	for _, era := range []string{"", "2025-11-25"} {
		hc := &http.Client{Transport: httpBearer{token: reader, base: http.DefaultTransport}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-oauth", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: s.url(), HTTPClient: hc, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		require.NoError(t, err, "era %q: %s", era, s.stderr.String())
		l, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		for _, tl := range l.Tools {
			assert.True(t, *tl.Annotations.DestructiveHint == false && tl.Annotations.ReadOnlyHint, "era %q: a read token sees only read tools, not %s", era, tl.Name)
		}
		assert.True(t, slices.ContainsFunc(l.Tools, func(tl *mcp.Tool) bool { return tl.Name == "read_query" }))
		mustCall(t, cs, "read_query", map[string]any{"query": "SELECT 1"})
		_ = cs.Close()
	}
	status, body := httpPost(t, s, strings.Replace(call, `"arguments"`, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"arguments"`, 1),
		"Authorization", "Bearer "+reader, "MCP-Protocol-Version", "2026-07-28")
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, body, "insufficient_scope")
	assert.Zero(t, httpCount(t, db, "SELECT count(*) FROM sqlite_schema WHERE name = 'pwned'"))
	assert.Equal(t, 1, httpCount(t, db, "SELECT count(*) FROM query_log WHERE tool = 'write_query' AND ok = 0"), "the refused call is audited under its tool")

	writer := is.token(t, aud, "sqlite:read sqlite:write", time.Hour)
	hc := &http.Client{Transport: httpBearer{token: writer, base: http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-oauth", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: s.url(), HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer cs.Close()
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE ok(x)"})
	assert.Equal(t, 1, httpCount(t, db, "SELECT count(*) FROM sqlite_schema WHERE name = 'ok'"))
	assert.NotContains(t, s.stderr.String(), reader, "tokens are never logged")
}
