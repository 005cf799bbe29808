package e2e_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webClient is a browser-like client of one server's /ui/: a cookie jar,
// the server's own origin on every form.
type webClient struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func newWebClient(t *testing.T, s *httpServer) *webClient {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &webClient{t: t, base: "http://" + s.addr, hc: &http.Client{Jar: jar, Timeout: callTimeout}}
}

// do sends one request (a form when form is not nil) and returns the
// status and body after redirects.
func (c *webClient) do(path string, form url.Values) (int, string) {
	c.t.Helper()
	var res *http.Response
	var err error
	if form == nil {
		res, err = c.hc.Get(c.base + path)
	} else {
		req, rerr := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
		require.NoError(c.t, rerr)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", c.base)
		res, err = c.hc.Do(req)
	}
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return res.StatusCode, string(b)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// With --oauth-issuer the web view's login form takes an access token from
// the issuer, checked as /mcp checks it; a read-only scope gives a view
// that cannot act.
func TestWebViewOAuthLogin(t *testing.T) {
	is := newOAuthIssuer(t)
	const aud = "http://127.0.0.1/mcp"
	db := filepath.Join(t.TempDir(), "m.db")
	s := httpStart(t, db, nil, "--oauth-issuer", is.srv.URL, "--oauth-audience", aud, "--snapshots", "3")

	c := newWebClient(t, s)
	status, body := c.do("/ui/login", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "OAuth access token")
	for name, tok := range map[string]string{
		"expired":        is.token(t, aud, "sqlite:read", -time.Hour),
		"wrong audience": is.token(t, "http://127.0.0.1/other", "sqlite:read", time.Hour),
		"no read scope":  is.token(t, aud, "sqlite:write", time.Hour),
	} {
		status, body := c.do("/ui/login", url.Values{"token": {tok}})
		assert.Equal(t, http.StatusForbidden, status, name)
		assert.Contains(t, body, "access token", name)
	}

	status, body = c.do("/ui/login", url.Values{"token": {is.token(t, aud, "sqlite:read", time.Hour)}})
	require.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, "Memory chain", "a read token shows the overview")
	assert.Contains(t, body, "view only")
	m := csrfRE.FindStringSubmatch(body)
	require.NotNil(t, m)
	status, body = c.do("/ui/restore", url.Values{"csrf": {m[1]}, "name": {"m.1.db"}, "confirm": {"yes"}})
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, body, "sqlite:destructive")
	status, _ = c.do("/ui/approvals", url.Values{"csrf": {m[1]}, "id": {"1"}, "answer": {"approve"}})
	assert.Equal(t, http.StatusForbidden, status)

	admin := newWebClient(t, s)
	status, body = admin.do("/ui/login", url.Values{"token": {is.token(t, aud, "sqlite:read sqlite:write sqlite:destructive", time.Hour)}})
	require.Equal(t, http.StatusOK, status, body)
	assert.NotContains(t, body, "view only", "the destructive scope acts")
	assert.Contains(t, body, "Intact")
}
