package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Defaults of [Options].
const (
	// DefaultLeeway is the clock skew allowed on exp, nbf and iat.
	DefaultLeeway = time.Minute
	// MaxLeeway bounds Options.Leeway: a larger skew would keep expired
	// tokens alive.
	MaxLeeway = 5 * time.Minute
	// DefaultRefetchEvery is the least time between two fetches of the
	// issuer's keys caused by tokens naming unknown keys.
	DefaultRefetchEvery = 30 * time.Second
	// DefaultKeysMaxAge is how long fetched keys are used before they are
	// fetched again, so a key the issuer removed stops being trusted.
	DefaultKeysMaxAge = time.Hour
)

// algorithms are the signature algorithms accepted: asymmetric only. A
// token signed with HS256 (a server's public key used as an HMAC secret)
// or with "none" is refused before any key is looked at.
var algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// Options configure a [TokenVerifier].
type Options struct {
	// Issuer is the authorization server's issuer identifier: https://, or
	// http:// on a loopback address only.
	Issuer string
	// Audience is this server's resource identifier (RFC 8707): tokens
	// whose aud does not name it are refused.
	Audience string
	// Client fetches the metadata and keys; nil means one with a 10 s
	// timeout that follows no redirects.
	Client *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Leeway is the clock skew allowed; 0 means DefaultLeeway, at most
	// MaxLeeway.
	Leeway time.Duration
	// RefetchEvery bounds the rate of key fetches for unknown key ids;
	// 0 means DefaultRefetchEvery.
	RefetchEvery time.Duration
	// KeysMaxAge is how long fetched keys are used; 0 means
	// DefaultKeysMaxAge.
	KeysMaxAge time.Duration
	// Log receives fetch failures; nil discards.
	Log *slog.Logger
}

// TokenVerifier verifies access tokens issued by one authorization server
// for one audience. It is safe for concurrent use.
type TokenVerifier struct {
	o Options

	fetch   sync.Mutex // one fetch at a time
	mu      sync.RWMutex
	jwksURI string
	keys    *jose.JSONWebKeySet
	fetched time.Time // when keys were fetched
	tried   time.Time // when a fetch was last tried
}

// New checks the options and returns a verifier; the issuer is first
// asked for its metadata and keys when a token arrives.
func New(o Options) (*TokenVerifier, error) {
	if err := CheckIssuer(o.Issuer); err != nil {
		return nil, err
	}
	if err := CheckAudience(o.Audience); err != nil {
		return nil, err
	}
	if o.Leeway < 0 || o.Leeway > MaxLeeway {
		return nil, fmt.Errorf("oauth: clock skew %s is outside 0 to %s", o.Leeway, MaxLeeway)
	}
	if o.Leeway == 0 {
		o.Leeway = DefaultLeeway
	}
	if o.RefetchEvery <= 0 {
		o.RefetchEvery = DefaultRefetchEvery
	}
	if o.KeysMaxAge <= 0 {
		o.KeysMaxAge = DefaultKeysMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &TokenVerifier{o: o}, nil
}

// CheckIssuer checks an issuer identifier: an absolute https:// URL with
// no query or fragment, or http:// on a loopback address (a local
// authorization server or a test); tokens and keys from anywhere else
// over plain HTTP could be forged on the way.
func CheckIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("oauth issuer %q is not an absolute https:// URL; give the authorization server's issuer identifier, as its metadata states it", issuer)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("oauth issuer %q has a query, fragment or user info, which an issuer identifier never has (RFC 8414)", issuer)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return fmt.Errorf("oauth issuer %q uses http:// on a host that is not a loopback address; use its https:// URL (http:// is accepted only on localhost, 127.0.0.1 or ::1)", issuer)
	}
	return nil
}

// CheckAudience checks a resource identifier: an absolute URI without a
// fragment (RFC 8707).
func CheckAudience(aud string) error {
	u, err := url.Parse(aud)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Fragment != "" {
		return fmt.Errorf("oauth audience %q is not an absolute URI without a fragment; give this server's public URL, e.g. https://db.example.com/mcp (RFC 8707)", aud)
	}
	return nil
}

// loopback reports whether host is localhost or a loopback IP.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Issuer is the issuer identifier tokens must carry.
func (v *TokenVerifier) Issuer() string { return v.o.Issuer }

// Audience is the resource identifier tokens must name.
func (v *TokenVerifier) Audience() string { return v.o.Audience }

// claims are the access token claims read besides the registered ones
// (RFC 9068 scope, and scp as some issuers send it, and client_id).
type claims struct {
	Scope    string   `json:"scope"`
	SCP      []string `json:"scp"`
	ClientID string   `json:"client_id"`
}

// Verify checks a bearer token and returns what it grants. A token that
// fails a check is refused with a *domain.Error of kind
// domain.ErrInvalidArgument whose message says which check and what to
// do; when the issuer's keys cannot be fetched, of kind
// domain.ErrUnavailable.
func (v *TokenVerifier) Verify(ctx context.Context, raw string) (domain.Grant, error) {
	tok, err := jwt.ParseSigned(raw, algorithms)
	if err != nil {
		return domain.Grant{}, invalid("the token is not a JWT signed with an asymmetric algorithm (RS*, PS*, ES*, EdDSA); unsigned and HMAC-signed tokens are refused")
	}
	h := tok.Headers[0]
	keys, err := v.keysFor(ctx, h.KeyID)
	if err != nil {
		return domain.Grant{}, err
	}
	var std jwt.Claims
	var ext claims
	verified := false
	for _, k := range keys {
		if k.Algorithm != "" && k.Algorithm != h.Algorithm {
			continue
		}
		if tok.Claims(k.Key, &std, &ext) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return domain.Grant{}, invalid("the token's signature does not verify against the issuer's published keys (kid %q); get a new token from %s", h.KeyID, v.o.Issuer)
	}
	return v.grant(std, ext)
}

// grant checks the claims of a token whose signature verified.
func (v *TokenVerifier) grant(std jwt.Claims, ext claims) (domain.Grant, error) {
	now := v.o.Now()
	if std.Expiry == nil {
		return domain.Grant{}, invalid("the token has no exp claim; access tokens must expire")
	}
	err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.o.Issuer, Time: now}, v.o.Leeway)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return domain.Grant{}, invalid("the token was issued by %q, not by %s, the issuer this server trusts", std.Issuer, v.o.Issuer)
	case errors.Is(err, jwt.ErrExpired):
		return domain.Grant{}, invalid("the token expired at %s; get a new one from %s", std.Expiry.Time().UTC().Format(time.RFC3339), v.o.Issuer)
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return domain.Grant{}, invalid("the token is not valid yet (nbf or iat is later than now by more than %s); check the clocks of the issuer and this server", v.o.Leeway)
	case err != nil:
		return domain.Grant{}, invalid("the token's claims are not valid: %v", err)
	}
	if !oauthex.MatchesResource(std.Audience, v.o.Audience) {
		return domain.Grant{}, invalid("the token is not meant for this server: its aud %q does not name %s; ask the issuer for a token with resource=%s (RFC 8707)", []string(std.Audience), v.o.Audience, v.o.Audience)
	}
	scopes := strings.Fields(ext.Scope)
	scopes = append(scopes, ext.SCP...)
	sub := std.Subject
	if sub == "" {
		sub = ext.ClientID
	}
	return domain.NewGrant(sub, scopes, std.Expiry.Time()), nil
}

func invalid(format string, args ...any) error {
	return domain.Errorf(domain.ErrInvalidArgument, "invalid_token: "+format, args...)
}
