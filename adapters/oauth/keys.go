package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// maxDocBytes bounds a metadata or key set document.
const maxDocBytes = 1 << 20

// keysFor returns the cached keys a token naming kid may be verified with
// (every key when kid is ""), fetching the key set first when none is
// cached, when it is older than KeysMaxAge, or when kid is unknown and the
// last fetch is older than RefetchEvery: a rotated key is picked up at
// once, and tokens naming made-up key ids cannot make the server hammer
// the issuer.
func (v *TokenVerifier) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	if ks, ok := v.cached(kid, false); ok {
		return ks, nil
	}
	v.fetch.Lock()
	defer v.fetch.Unlock()
	if ks, ok := v.cached(kid, false); ok { // fetched while we waited
		return ks, nil
	}
	v.mu.RLock()
	now := v.o.Now()
	due := v.keys == nil || now.Sub(v.fetched) >= v.o.KeysMaxAge || now.Sub(v.tried) >= v.o.RefetchEvery
	v.mu.RUnlock()
	if due {
		if err := v.refresh(ctx); err != nil {
			v.o.Log.Warn("could not fetch the OAuth issuer's keys", "issuer", v.o.Issuer, "err", err)
			v.mu.RLock()
			none := v.keys == nil
			v.mu.RUnlock()
			if none {
				return nil, domain.Errorf(domain.ErrUnavailable, "the authorization server's keys could not be fetched (%v); retry later, or check --oauth-issuer", err)
			}
		}
	}
	if ks, ok := v.cached(kid, true); ok {
		return ks, nil
	}
	return nil, invalid("the token names key %q, which the issuer %s does not publish (a rotated-out or made-up key); get a new token", kid, v.o.Issuer)
}

// cached returns the keys for kid from the cache; stale keys count only
// when stale is true (after a fetch was tried).
func (v *TokenVerifier) cached(kid string, stale bool) ([]jose.JSONWebKey, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.keys == nil || (!stale && v.o.Now().Sub(v.fetched) >= v.o.KeysMaxAge) {
		return nil, false
	}
	ks := v.keys.Keys
	if kid != "" {
		ks = v.keys.Key(kid)
	}
	return ks, len(ks) > 0
}

// refresh fetches the metadata (once) and the key set, keeping only
// valid public signing keys: the whole set is replaced, so a key the
// issuer removed is dropped.
func (v *TokenVerifier) refresh(ctx context.Context) error {
	v.mu.Lock()
	v.tried = v.o.Now()
	uri := v.jwksURI
	v.mu.Unlock()
	if uri == "" {
		var err error
		if uri, err = v.discover(ctx); err != nil {
			return err
		}
	}
	var set jose.JSONWebKeySet
	if err := v.getJSON(ctx, uri, &set); err != nil {
		return fmt.Errorf("key set %s: %v", uri, err)
	}
	keep := set.Keys[:0]
	for _, k := range set.Keys {
		if k.Valid() && k.IsPublic() && (k.Use == "" || k.Use == "sig") {
			keep = append(keep, k)
		}
	}
	set.Keys = keep
	v.mu.Lock()
	defer v.mu.Unlock()
	v.jwksURI, v.keys, v.fetched = uri, &set, v.o.Now()
	return nil
}

// metadata is the part of RFC 8414 / OpenID Connect discovery metadata
// a resource server reads.
type metadata struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// discover finds the issuer's jwks_uri: RFC 8414 metadata first (the
// well-known path inserted before the issuer's path), then OpenID Connect
// discovery. The metadata must name the configured issuer exactly.
func (v *TokenVerifier) discover(ctx context.Context) (string, error) {
	u, _ := url.Parse(v.o.Issuer) // checked by New
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	base := u.Scheme + "://" + u.Host
	var errs []string
	for _, doc := range []string{base + "/.well-known/oauth-authorization-server" + path, base + path + "/.well-known/openid-configuration"} {
		var m metadata
		if err := v.getJSON(ctx, doc, &m); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if m.Issuer != v.o.Issuer {
			return "", fmt.Errorf("metadata %s names issuer %q, not %q (RFC 8414 requires them to be equal)", doc, m.Issuer, v.o.Issuer)
		}
		if err := CheckIssuer(m.JWKSURI); err != nil || m.JWKSURI == "" {
			return "", fmt.Errorf("metadata %s has jwks_uri %q, which is not https:// (or http:// on loopback)", doc, m.JWKSURI)
		}
		return m.JWKSURI, nil
	}
	return "", fmt.Errorf("no authorization server metadata found: %s", strings.Join(errs, "; "))
}

// getJSON GETs a JSON document of at most maxDocBytes.
func (v *TokenVerifier) getJSON(ctx context.Context, uri string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.o.Client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", uri, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxDocBytes {
		return fmt.Errorf("GET %s: larger than %d bytes", uri, maxDocBytes)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("GET %s: %v", uri, err)
	}
	return nil
}
