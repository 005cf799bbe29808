package webui

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// view is one request being answered.
type view struct {
	h *Handler
	w http.ResponseWriter
	r *http.Request
	s *session
}

// routes are the pages and actions, by path under [Prefix].
var routes = map[string]func(*view){
	"/":                   (*view).overview,
	"/memory":             (*view).memory,
	"/memory/event":       (*view).event,
	"/memory/checkpoints": (*view).checkpoints,
	"/audit":              (*view).audit,
	"/audit/call":         (*view).call,
	"/snapshots":          (*view).snapshots,
	"/undo":               (*view).undo,
	"/restore":            (*view).restore,
	"/tables":             (*view).tables,
	"/tables/rows":        (*view).tableRows,
	"/approvals":          (*view).approvals,
	"/logout":             (*view).logout,
}

// page renders a page with what the layout needs.
func (v *view) page(name, title, nav string, data map[string]any) {
	data["Title"], data["Nav"], data["CSRF"] = title, nav, v.s.csrf
	data["ReadOnly"], data["HasQueue"], data["ViewOnly"], data["Who"] = v.readOnly(), v.h.d.Approvals != nil, v.s.viewOnly && !v.h.d.ReadOnly, v.s.who
	data["ScopeDestructive"] = domain.ScopeDestructive
	v.h.render(v.w, http.StatusOK, name, data)
}

// fail renders an error page.
func (v *view) fail(status int, msg string) {
	data := map[string]any{"Title": "Error", "Msg": msg, "CSRF": v.s.csrf, "Nav": ""}
	v.h.render(v.w, status, "error", data)
}

// readOnly reports whether this request may not act: the server is
// read-only, or the session's OAuth token lacks the destructive scope.
func (v *view) readOnly() bool { return v.h.d.ReadOnly || v.s.viewOnly }

// whyReadOnly names what keeps this request from acting.
func (v *view) whyReadOnly() string {
	if v.h.d.ReadOnly {
		return "--read-only"
	}
	return "this login's access token (without the scope " + domain.ScopeDestructive + ")"
}

// post reports whether the request is the form's submission (the session
// and CSRF token were checked by ServeHTTP).
func (v *view) post() bool { return v.r.Method == http.MethodPost }

// q is a query or form value, trimmed.
func (v *view) q(name string) string { return strings.TrimSpace(v.r.FormValue(name)) }

// id is a positive integer parameter, 0 when absent or malformed.
func (v *view) id(name string) int64 {
	n, err := strconv.ParseInt(strings.TrimPrefix(v.q(name), "#"), 10, 64)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// link is a page path with its query, built from values (escaped).
func link(path string, q url.Values) string {
	for k, vs := range q {
		if len(vs) == 0 || vs[0] == "" {
			delete(q, k)
		}
	}
	if len(q) == 0 {
		return Prefix + strings.TrimPrefix(path, "/")
	}
	return Prefix + strings.TrimPrefix(path, "/") + "?" + q.Encode()
}

func (v *view) logout() {
	if !v.post() {
		v.fail(http.StatusMethodNotAllowed, "log out with the button at the top")
		return
	}
	if c, err := v.r.Cookie(cookieName); err == nil {
		v.h.mu.Lock()
		delete(v.h.sessions, c.Value)
		v.h.mu.Unlock()
	}
	http.SetCookie(v.w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(v.w, v.r, Prefix+"login", http.StatusSeeOther)
}
