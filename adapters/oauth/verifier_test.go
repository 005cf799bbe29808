package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/oauth"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

const audience = "https://db.example.com/mcp"

// issuer is a local authorization server: RFC 8414 metadata and a JWKS
// on a loopback httptest server, with keys made in the test.
type issuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    map[string]any // kid -> private key
	fetches atomic.Int64   // JWKS fetches
}

func newIssuer(t testing.TB) *issuer {
	t.Helper()
	is := &issuer{keys: map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		is.fetches.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		var set jose.JSONWebKeySet
		for kid, k := range is.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: public(k), KeyID: kid, Use: "sig"})
		}
		_ = json.NewEncoder(w).Encode(set)
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	is.rotate(t, "k1", nil)
	return is
}

func public(k any) any {
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return &k.PublicKey
	case *ecdsa.PrivateKey:
		return &k.PublicKey
	}
	panic("unknown key type")
}

// rotate publishes a new RSA key as kid and removes the one named drop.
func (is *issuer) rotate(t testing.TB, kid string, drop *string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys[kid] = k
	if drop != nil {
		delete(is.keys, *drop)
	}
}

// token signs claims with the issuer's key kid (RS256).
func (is *issuer) token(t testing.TB, kid string, c jwt.Claims, scope string) string {
	t.Helper()
	is.mu.Lock()
	k := is.keys[kid]
	is.mu.Unlock()
	require.NotNil(t, k, "no key %s", kid)
	return sign(t, jose.RS256, k, kid, c, scope)
}

func sign(t testing.TB, alg jose.SignatureAlgorithm, key any, kid string, c jwt.Claims, scope string) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	require.NoError(t, err)
	raw, err := jwt.Signed(s).Claims(c).Claims(map[string]any{"scope": scope}).Serialize()
	require.NoError(t, err)
	return raw
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newVerifier(t *testing.T, is *issuer, clk *clock) *oauth.TokenVerifier {
	t.Helper()
	v, err := oauth.New(oauth.Options{Issuer: is.srv.URL, Audience: audience, Now: clk.now, Client: is.srv.Client()})
	require.NoError(t, err)
	return v
}

func claimsAt(is *issuer, now time.Time) jwt.Claims {
	return jwt.Claims{Issuer: is.srv.URL, Subject: "alice", Audience: jwt.Audience{audience},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
}

func TestVerifyAcceptsAValidTokenAndReadsItsScopes(t *testing.T) {
	is := newIssuer(t)
	clk := &clock{t: time.Now()}
	v := newVerifier(t, is, clk)
	c := claimsAt(is, clk.now())
	g, err := v.Verify(context.Background(), is.token(t, "k1", c, "openid sqlite:read sqlite:destructive"))
	require.NoError(t, err)
	assert.Equal(t, "alice", g.Subject)
	assert.Equal(t, []string{domain.ScopeRead, domain.ScopeDestructive}, g.Scopes())
	assert.True(t, g.Expiry.Equal(c.Expiry.Time()))
	// The audience with or without its trailing slash is the same resource.
	c.Audience = jwt.Audience{"https://other.example.com", audience + "/"}
	_, err = v.Verify(context.Background(), is.token(t, "k1", c, "sqlite:read"))
	assert.NoError(t, err)
}

// Every token that fails a check is refused as invalid, and says which.
func TestVerifyRefusesBadTokens(t *testing.T) {
	is := newIssuer(t)
	clk := &clock{t: time.Now()}
	v := newVerifier(t, is, clk)
	now := clk.now()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	is.mu.Lock()
	pub := public(is.keys["k1"]).(*rsa.PublicKey)
	is.mu.Unlock()
	der, err := x509.MarshalPKIXPublicKey(pub)
	require.NoError(t, err)
	jwk, err := json.Marshal(jose.JSONWebKey{Key: pub, KeyID: "k1"})
	require.NoError(t, err)

	with := func(f func(*jwt.Claims)) string {
		c := claimsAt(is, now)
		f(&c)
		return is.token(t, "k1", c, domain.ScopeRead)
	}
	payload, err := json.Marshal(claimsAt(is, now))
	require.NoError(t, err)
	b64 := base64.RawURLEncoding.EncodeToString
	cases := map[string]string{
		"expired":              with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-2 * oauth.DefaultLeeway)) }),
		"not yet valid":        with(func(c *jwt.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(2 * oauth.DefaultLeeway)) }),
		"no expiry":            with(func(c *jwt.Claims) { c.Expiry = nil }),
		"wrong audience":       with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"https://db.example.com/other"} }),
		"no audience":          with(func(c *jwt.Claims) { c.Audience = nil }),
		"wrong issuer":         with(func(c *jwt.Claims) { c.Issuer = "https://evil.example.com" }),
		"alg none":             b64([]byte(`{"alg":"none","kid":"k1"}`)) + "." + b64(payload) + ".",
		"HS256 with DER key":   sign(t, jose.HS256, der, "k1", claimsAt(is, now), domain.ScopeRead),
		"HS256 with JWK bytes": sign(t, jose.HS256, jwk, "k1", claimsAt(is, now), domain.ScopeRead),
		"signed by a stranger": sign(t, jose.ES256, ec, "k1", claimsAt(is, now), domain.ScopeRead),
		"unknown kid":          sign(t, jose.ES256, ec, "k9", claimsAt(is, now), domain.ScopeRead),
		"not a JWT":            "opaque-token-value",
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), raw)
			require.Error(t, err)
			assert.ErrorIs(t, err, domain.ErrInvalidArgument)
		})
	}
	// Skew within the leeway is accepted.
	_, err = v.Verify(context.Background(), with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-oauth.DefaultLeeway / 2)) }))
	assert.NoError(t, err)
}

// A token signed with a key the issuer published after the keys were
// cached is accepted (the unknown kid makes the verifier fetch again);
// one signed with a key the issuer removed is refused once the set is
// fetched again; unknown kids cause at most one fetch per RefetchEvery.
func TestVerifyFollowsKeyRotation(t *testing.T) {
	is := newIssuer(t)
	clk := &clock{t: time.Now()}
	v := newVerifier(t, is, clk)
	old := is.token(t, "k1", claimsAt(is, clk.now()), domain.ScopeRead)
	_, err := v.Verify(context.Background(), old)
	require.NoError(t, err)
	require.EqualValues(t, 1, is.fetches.Load())

	k1 := "k1"
	is.rotate(t, "k2", &k1)
	clk.add(oauth.DefaultRefetchEvery)
	fresh := is.token(t, "k2", claimsAt(is, clk.now()), domain.ScopeRead)
	_, err = v.Verify(context.Background(), fresh)
	require.NoError(t, err, "the new kid is fetched")
	assert.EqualValues(t, 2, is.fetches.Load())

	_, err = v.Verify(context.Background(), old)
	assert.ErrorIs(t, err, domain.ErrInvalidArgument, "the removed key is no longer trusted")

	// A flood of made-up kids within RefetchEvery fetches nothing more.
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	before := is.fetches.Load()
	for i := range 20 {
		_, err := v.Verify(context.Background(), sign(t, jose.ES256, ec, "made-up-"+string(rune('a'+i)), claimsAt(is, clk.now()), domain.ScopeRead))
		assert.ErrorIs(t, err, domain.ErrInvalidArgument)
	}
	assert.Equal(t, before, is.fetches.Load(), "unknown kids within the refetch interval fetch nothing")

	// Keys older than KeysMaxAge are fetched again even for a known kid.
	clk.add(oauth.DefaultKeysMaxAge)
	_, err = v.Verify(context.Background(), is.token(t, "k2", claimsAt(is, clk.now()), domain.ScopeRead))
	require.NoError(t, err)
	assert.Equal(t, before+1, is.fetches.Load())
}

func TestVerifyReportsAnUnreachableIssuerAsUnavailable(t *testing.T) {
	is := newIssuer(t)
	clk := &clock{t: time.Now()}
	v := newVerifier(t, is, clk)
	raw := is.token(t, "k1", claimsAt(is, clk.now()), domain.ScopeRead)
	is.srv.Close()
	_, err := v.Verify(context.Background(), raw)
	assert.ErrorIs(t, err, domain.ErrUnavailable)
}

func TestVerifyRefusesMetadataNamingAnotherIssuer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": "https://evil.example.com", "jwks_uri": "https://evil.example.com/jwks"})
	}))
	defer srv.Close()
	v, err := oauth.New(oauth.Options{Issuer: srv.URL, Audience: audience, Client: srv.Client()})
	require.NoError(t, err)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	_, err = v.Verify(context.Background(), sign(t, jose.ES256, ec, "k1", jwt.Claims{Issuer: srv.URL}, ""))
	assert.ErrorIs(t, err, domain.ErrUnavailable)
}

func TestNewChecksTheIssuerAndAudience(t *testing.T) {
	for _, c := range []struct {
		issuer, audience string
		ok               bool
	}{
		{"https://auth.example.com", audience, true},
		{"https://auth.example.com/tenant/1", audience, true},
		{"http://127.0.0.1:8080", audience, true},
		{"http://localhost:8080/realms/x", audience, true},
		{"http://[::1]:9000", audience, true},
		{"http://auth.example.com", audience, false},
		{"http://10.0.0.5", audience, false},
		{"ftp://auth.example.com", audience, false},
		{"auth.example.com", audience, false},
		{"https://auth.example.com?x=1", audience, false},
		{"https://auth.example.com", "db", false},
		{"https://auth.example.com", "", false},
	} {
		_, err := oauth.New(oauth.Options{Issuer: c.issuer, Audience: c.audience})
		assert.Equal(t, c.ok, err == nil, "%s %s: %v", c.issuer, c.audience, err)
	}
	_, err := oauth.New(oauth.Options{Issuer: "https://a.example.com", Audience: audience, Leeway: time.Hour})
	assert.Error(t, err, "a clock skew over MaxLeeway")
}

// BenchmarkVerify is the cost a request pays for its token once the keys
// are cached (RS256, 2048-bit).
func BenchmarkVerify(b *testing.B) {
	is := newIssuer(b)
	clk := &clock{t: time.Now()}
	v, err := oauth.New(oauth.Options{Issuer: is.srv.URL, Audience: audience, Now: clk.now, Client: is.srv.Client()})
	require.NoError(b, err)
	raw := is.token(b, "k1", claimsAt(is, clk.now()), domain.ScopeRead)
	_, err = v.Verify(context.Background(), raw)
	require.NoError(b, err)
	b.ResetTimer()
	for range b.N {
		if _, err := v.Verify(context.Background(), raw); err != nil {
			b.Fatal(err)
		}
	}
}
