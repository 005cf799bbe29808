package webui

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// grants is an OAuth verifier over a fixed set of tokens.
type grants map[string]domain.Grant

func (g grants) Verify(_ context.Context, tok string) (domain.Grant, error) {
	if gr, ok := g[tok]; ok {
		return gr, nil
	}
	return domain.Grant{}, errors.New("the token's signature does not verify")
}

// stepClock is a clock the test moves.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }

// tokenLogin posts tok to the login form and returns the response, and,
// when it logged in, the session cookie and the CSRF token of a page.
func tokenLogin(t *testing.T, h *Handler, tok string) (*httptest.ResponseRecorder, *http.Cookie, string) {
	t.Helper()
	rec := post(h, "/ui/login", url.Values{"token": {tok}}, nil, nil)
	if rec.Code != http.StatusSeeOther {
		return rec, nil, ""
	}
	c := rec.Result().Cookies()[0]
	page := get(h, "/ui/approvals", c)
	require.Equal(t, http.StatusOK, page.Code)
	body := page.Body.String()
	i := strings.Index(body, `name="csrf" value="`)
	require.Positive(t, i)
	csrf := body[i+len(`name="csrf" value="`):]
	return rec, c, csrf[:strings.IndexByte(csrf, '"')]
}

func get(h *Handler, path string, c *http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil)
	req.AddCookie(c)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// With OAuth the login form takes an access token the server's verifier
// accepts: the read scope shows the pages, only the destructive scope
// acts, and the session ends with the token.
func TestOAuthTokenLogsInWithItsScopes(t *testing.T) {
	clock := &stepClock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	exp := clock.now.Add(time.Hour)
	u, q := &recUndo{}, &recQueue{}
	snaps.restored = 0
	h := New(Deps{DB: emptyDB{}, Audit: emptyDB{}, Undo: u, Approvals: q, Snapshots: snaps, Limits: domain.DefaultLimits(), Clock: clock},
		Options{Verifier: grants{
			"reader": domain.NewGrant("ann", []string{domain.ScopeRead}, exp),
			"admin":  domain.NewGrant("bob", domain.Scopes(), exp),
			"writer": domain.NewGrant("cat", []string{domain.ScopeWrite}, exp),
		}})

	rec, _, _ := tokenLogin(t, h, "forged")
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.Contains(t, rec.Body.String(), "signature does not verify", "the verifier's reason shows")
	rec, _, _ = tokenLogin(t, h, "writer")
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.Contains(t, rec.Body.String(), domain.ScopeRead, "without the read scope the view shows nothing")

	_, c, csrf := tokenLogin(t, h, "reader")
	require.NotNil(t, c, "a read token logs in")
	page := get(h, "/ui/approvals", c).Body.String()
	assert.Contains(t, page, "view only")
	assert.NotContains(t, page, `value="approve"`, "a read token's view offers no answer")
	for path, form := range map[string]url.Values{
		"/ui/approvals": {"id": {"3"}, "answer": {"approve"}},
		"/ui/undo":      {"call": {"7"}, "confirm": {"yes"}},
		"/ui/restore":   {"name": {"a.1.db"}, "confirm": {"yes"}},
	} {
		form.Set("csrf", csrf)
		rec := post(h, path, form, c, nil)
		assert.Equal(t, http.StatusForbidden, rec.Code, path)
		assert.Contains(t, rec.Body.String(), domain.ScopeDestructive, path)
	}
	assert.Zero(t, q.answered)
	assert.Zero(t, u.applied)
	assert.Zero(t, snaps.restored)

	_, c, csrf = tokenLogin(t, h, "admin")
	require.NotNil(t, c)
	assert.Contains(t, get(h, "/ui/approvals", c).Body.String(), `value="approve"`)
	rec = post(h, "/ui/approvals", url.Values{"csrf": {csrf}, "id": {"3"}, "answer": {"approve"}}, c, nil)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, 1, q.answered, "the destructive scope answers")

	clock.now = exp
	assert.Equal(t, http.StatusSeeOther, get(h, "/ui/", c).Code, "the session ends when its token expires")
}
