package webui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// emptyDB answers every read with no rows.
type emptyDB struct{}

func (emptyDB) Read(_ context.Context, _ string, columns func([]string), _ ports.RowFunc) error {
	columns(nil)
	return nil
}

// recUndo plans call 7 and counts the applies.
type recUndo struct{ applied int }

func (u *recUndo) Undo(_ context.Context, call int64, decide func(domain.UndoPlan) (bool, bool)) (domain.UndoPlan, UndoResult, error) {
	p := domain.UndoPlan{Call: domain.UndoCall{ID: 7, Tool: domain.ToolDestructiveQuery, Query: "DELETE FROM t"}}
	if ok, _ := decide(p); ok {
		u.applied++
		return p, UndoResult{EventID: 9}, nil
	}
	return p, UndoResult{}, nil
}

// recQueue has question 3 waiting and counts the answers.
type recQueue struct{ answered int }

func (q *recQueue) Pending(context.Context) ([]Pending, error) {
	return []Pending{{ID: 3, Tool: domain.ToolDestructiveQuery, Impact: "- table 't': 1 row deleted"}}, nil
}

func (q *recQueue) Answer(context.Context, int64, bool) error { q.answered++; return nil }

// recSnaps has one snapshot and counts the restores.
type recSnaps struct{ restored int }

func (s *recSnaps) List() ([]Snapshot, error) { return []Snapshot{{Name: "a.1.db", Bytes: 10}}, nil }

func (s *recSnaps) RestoreOver(context.Context, string) (string, error) {
	s.restored++
	return "a.2.db", nil
}

var snaps = &recSnaps{}

func newTestHandler() (*Handler, *recUndo, *recQueue) {
	u, q := &recUndo{}, &recQueue{}
	snaps.restored = 0
	h := New(Deps{DB: emptyDB{}, Audit: emptyDB{}, Undo: u, Approvals: q, Snapshots: snaps, Limits: domain.DefaultLimits()}, Options{Secret: "s3cret"})
	return h, u, q
}

// login spends the secret and returns the session cookie and the CSRF
// token a page carries.
func login(t *testing.T, h *Handler) (*http.Cookie, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/login?secret=s3cret", nil))
	require.Equal(t, http.StatusSeeOther, rec.Code)
	cookies := rec.Result().Cookies()
	require.Len(t, cookies, 1)
	c := cookies[0]
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/approvals", nil)
	req.AddCookie(c)
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
	body := rec.Body.String()
	i := strings.Index(body, `name="csrf" value="`)
	require.Positive(t, i)
	tok := body[i+len(`name="csrf" value="`):]
	return c, tok[:strings.IndexByte(tok, '"')]
}

func post(h *Handler, path string, form url.Values, cookie *http.Cookie, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		}
		req.Header.Set(k, v)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// A state-changing request without the session, without the CSRF token,
// with another token or from another site changes nothing.
func TestActionsNeedSessionAndCSRFToken(t *testing.T) {
	h, u, q := newTestHandler()
	cookie, csrf := login(t, h)
	undo := url.Values{"call": {"7"}, "confirm": {"yes"}, "plan": {planDigest(domain.UndoPlan{Call: domain.UndoCall{ID: 7, Tool: domain.ToolDestructiveQuery, Query: "DELETE FROM t"}})}}
	approve := url.Values{"id": {"3"}, "answer": {"approve"}}
	restore := url.Values{"name": {"a.1.db"}, "confirm": {"yes"}}
	for name, bad := range map[string]struct {
		cookie *http.Cookie
		csrf   string
		header map[string]string
	}{
		"no cookie":        {nil, csrf, nil},
		"wrong cookie":     {&http.Cookie{Name: cookieName, Value: "guess"}, csrf, nil},
		"no csrf":          {cookie, "", nil},
		"wrong csrf":       {cookie, strings.Repeat("0", len(csrf)), nil},
		"foreign origin":   {cookie, csrf, map[string]string{"Origin": "http://evil.test"}},
		"null origin":      {cookie, csrf, map[string]string{"Origin": "null"}},
		"cross-site fetch": {cookie, csrf, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"rebinding host":   {cookie, csrf, map[string]string{"Host": "evil.test"}},
	} {
		for path, form := range map[string]url.Values{"/ui/undo": undo, "/ui/approvals": approve, "/ui/restore": restore} {
			f := url.Values{}
			for k, v := range form {
				f[k] = v
			}
			if bad.csrf != "" {
				f.Set("csrf", bad.csrf)
			}
			req := post(h, path, f, bad.cookie, bad.header)
			assert.Contains(t, []int{http.StatusSeeOther, http.StatusForbidden}, req.Code, "%s %s", name, path)
		}
	}
	assert.Zero(t, u.applied, "no undo ran")
	assert.Zero(t, q.answered, "no question was answered")
	assert.Zero(t, snaps.restored, "no snapshot was restored")

	restore.Set("csrf", csrf)
	assert.Contains(t, post(h, "/ui/restore", restore, cookie, nil).Body.String(), "Restored a.1.db over the database")
	assert.Equal(t, 1, snaps.restored)
	undo.Set("csrf", csrf)
	approve.Set("csrf", csrf)
	assert.Equal(t, http.StatusOK, post(h, "/ui/undo", undo, cookie, map[string]string{"Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin"}).Code)
	assert.Equal(t, http.StatusOK, post(h, "/ui/approvals", approve, cookie, nil).Code)
	assert.Equal(t, 1, u.applied)
	assert.Equal(t, 1, q.answered)

	// Without the confirmation, or after the plan changed, undo restores nothing.
	undo.Del("confirm")
	assert.Contains(t, post(h, "/ui/undo", undo, cookie, nil).Body.String(), "nothing was restored")
	undo.Set("confirm", "yes")
	undo.Set("plan", "0000")
	assert.Contains(t, post(h, "/ui/undo", undo, cookie, nil).Body.String(), "nothing was restored")
	assert.Equal(t, 1, u.applied)
}

// The read-only view shows no action and refuses each.
func TestReadOnlyRefusesActions(t *testing.T) {
	h, u, q := newTestHandler()
	h.d.ReadOnly = true
	cookie, csrf := login(t, h)
	assert.Equal(t, http.StatusForbidden, post(h, "/ui/undo", url.Values{"csrf": {csrf}, "call": {"7"}, "confirm": {"yes"}}, cookie, nil).Code)
	assert.Equal(t, http.StatusForbidden, post(h, "/ui/approvals", url.Values{"csrf": {csrf}, "id": {"3"}, "answer": {"approve"}}, cookie, nil).Code)
	assert.Equal(t, http.StatusForbidden, post(h, "/ui/restore", url.Values{"csrf": {csrf}, "name": {"a.1.db"}, "confirm": {"yes"}}, cookie, nil).Code)
	assert.Zero(t, u.applied)
	assert.Zero(t, q.answered)
	assert.Zero(t, snaps.restored)
}

// The one-time secret logs in once; every answer carries the policy.
func TestSecretWorksOnceAndPagesCarryThePolicy(t *testing.T) {
	h, _, _ := newTestHandler()
	login(t, h)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/login?secret=s3cret", nil))
	assert.Equal(t, http.StatusForbidden, rec.Code, "a spent secret")
	assert.Empty(t, rec.Result().Cookies())
	assert.Equal(t, csp, rec.Header().Get("Content-Security-Policy"))
	assert.Contains(t, csp, "default-src 'none'")
	assert.NotContains(t, csp, "script-src")
	assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/", nil))
	assert.Equal(t, http.StatusSeeOther, rec.Code, "no session: the login page")
	assert.Equal(t, "/ui/login", rec.Header().Get("Location"))
}

// The bearer token of an --http server logs in through the form.
func TestTokenLogsIn(t *testing.T) {
	h := New(Deps{DB: emptyDB{}, Limits: domain.DefaultLimits()}, Options{Token: "the-bearer-token-0123456789"})
	for tok, want := range map[string]int{"": http.StatusForbidden, "the-bearer-token-012345678": http.StatusForbidden, "the-bearer-token-0123456789": http.StatusSeeOther} {
		rec := post(h, "/ui/login", url.Values{"token": {tok}}, nil, nil)
		assert.Equal(t, want, rec.Code, "token %q", tok)
	}
}

func TestBaseNames(t *testing.T) {
	assert.Equal(t, "cannot open agent.db: no such file", baseNames("cannot open /home/me/work/agent.db: no such file"))
	assert.Equal(t, "snapshot agent.1.db written", baseNames(`snapshot C:\Users\me\agent.1.db written`))
}
