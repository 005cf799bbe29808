package webui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Prefix is where the web view is served.
const Prefix = "/ui/"

// csp is every page's Content-Security-Policy: nothing but this origin's
// style sheet and images, no script at all, no framing, forms post here.
const csp = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// cookieName is the session cookie's name.
const cookieName = "mcpsm_ui"

//go:embed assets
var assets embed.FS

// Options say who may log in and which names the server answers to.
type Options struct {
	// Token, when set, is the HTTP server's bearer token: the login form
	// accepts it (the person pastes it), as often as asked.
	Token string
	// Verifier, when set, checks OAuth access tokens pasted in the login
	// form, as the HTTP server checks them on /mcp (the same verifier):
	// a token whose scopes lack sqlite:read is refused, one without
	// sqlite:destructive gives a session that cannot act (undo, restore,
	// approve, deny), and the session ends when the token expires.
	Verifier TokenVerifier
	// Secret, when set, is a one-time login secret: the first request to
	// /ui/login?secret=SECRET logs in, and the secret is spent.
	Secret string
	// Hosts are the names accepted in Host and Origin besides loopback
	// names (the bound address, --allowed-hosts).
	Hosts []string
	// SessionIdle ends a session unused this long (0: 12 hours).
	SessionIdle time.Duration
	// Logger receives request failures (nil discards).
	Logger *slog.Logger
}

// Handler serves the web view under [Prefix].
type Handler struct {
	d     Deps
	o     Options
	hosts map[string]bool
	pages map[string]*template.Template
	log   *slog.Logger

	mu       sync.Mutex
	secret   string // "" once spent
	sessions map[string]*session
}

// TokenVerifier checks an OAuth access token and returns what it grants
// (the shape of the HTTP server's verifier).
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (domain.Grant, error)
}

// session is one logged-in browser.
type session struct {
	csrf string
	seen time.Time
	// viewOnly: the login's token grants no actions (an OAuth token
	// without the destructive scope).
	viewOnly bool
	// expires, when set, is the OAuth token's expiry, which ends the
	// session.
	expires time.Time
	// who is the OAuth token's subject ("" for the other logins).
	who string
}

// New returns the web view over d.
func New(d Deps, o Options) *Handler {
	if o.SessionIdle <= 0 {
		o.SessionIdle = 12 * time.Hour
	}
	if d.Clock == nil {
		d.Clock = systemClock{}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{d: d, o: o, hosts: map[string]bool{}, log: log, secret: o.Secret, sessions: map[string]*session{}}
	for _, n := range o.Hosts {
		h.hosts[normHost(n)] = true
	}
	h.pages = parsePages()
	return h
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// NewSecret returns a fresh one-time login secret.
func NewSecret() string { return randomHex(24) }

// ServeHTTP checks Host and Origin, then the session, then routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" on the forms, which the Origin check refuses.
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	if msg := h.checkHost(r); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, strings.TrimSuffix(Prefix, "/"))
	switch path {
	case "/style.css":
		h.serveAsset(w, "assets/style.css", "text/css; charset=utf-8")
		return
	case "/login":
		h.login(w, r)
		return
	}
	s := h.sessionOf(r)
	if s == nil {
		http.Redirect(w, r, Prefix+"login", http.StatusSeeOther)
		return
	}
	if r.Method == http.MethodPost {
		if !h.postAllowed(r, s) {
			http.Error(w, "refused: this form was not sent by a page of this web view (missing or wrong CSRF token, or a foreign origin); nothing was changed. Reload the page and try again.", http.StatusForbidden)
			return
		}
	} else if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.d.Limits.QueryTimeout+time.Second)
	defer cancel()
	v := &view{h: h, w: w, r: r.WithContext(ctx), s: s}
	route, ok := routes[path]
	if !ok {
		v.fail(http.StatusNotFound, "no such page: see the links at the top")
		return
	}
	route(v)
}

// serveAsset writes one embedded file.
func (h *Handler) serveAsset(w http.ResponseWriter, name, ctype string) {
	b, err := fs.ReadFile(assets, name)
	if err != nil {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write(b)
}

// login shows the form, takes the token from it, or spends the one-time
// secret; success sets the session cookie and goes to the overview.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Query().Has("secret"):
		if h.spendSecret(r.URL.Query().Get("secret")) {
			h.startSession(w)
			http.Redirect(w, r, Prefix, http.StatusSeeOther)
			return
		}
		h.loginPage(w, http.StatusForbidden, "That login link was already used or is wrong. Restart the ui command for a new one, or log in with the server's token.")
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		h.loginPage(w, http.StatusOK, "")
	case r.Method == http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
		tok := r.PostFormValue("token")
		if h.o.Token != "" && tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(h.o.Token)) == 1 || h.spendSecret(tok) {
			h.startSession(w)
			http.Redirect(w, r, Prefix, http.StatusSeeOther)
			return
		}
		if h.o.Verifier != nil && tok != "" {
			h.oauthLogin(w, r, tok)
			return
		}
		h.loginPage(w, http.StatusForbidden, "Wrong token: paste the server's bearer token (the content of --auth-token-file) or the ui command's secret.")
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// oauthLogin checks tok with the OAuth verifier: the read scope to see,
// the destructive scope to act; the session lasts no longer than the token.
func (h *Handler) oauthLogin(w http.ResponseWriter, r *http.Request, tok string) {
	g, err := h.o.Verifier.Verify(r.Context(), tok)
	if err != nil {
		h.loginPage(w, http.StatusForbidden, "That access token was refused: "+errText(err)+". Paste a current access token from the server's OAuth issuer, issued for this server.")
		return
	}
	if !g.Allows(domain.TierRead) {
		h.loginPage(w, http.StatusForbidden, "That access token does not have the scope "+domain.ScopeRead+", which the web view needs to show anything; ask the issuer for a token with it.")
		return
	}
	h.startSessionAs(w, &session{viewOnly: !g.Allows(domain.TierDestructive), expires: g.Expiry, who: g.Subject})
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

func (h *Handler) loginPage(w http.ResponseWriter, status int, msg string) {
	h.render(w, status, "login", map[string]any{"Title": "Log in", "Msg": msg, "HasToken": h.o.Token != "", "HasOAuth": h.o.Verifier != nil})
}

// spendSecret reports whether s is the one-time secret, spending it.
func (h *Handler) spendSecret(s string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.secret == "" || s == "" || subtle.ConstantTimeCompare([]byte(s), []byte(h.secret)) != 1 {
		return false
	}
	h.secret = ""
	return true
}

// startSession makes a session and sets its cookie: HttpOnly (no script
// reads it), SameSite=Strict (no other site's page sends it), for /ui/ only.
func (h *Handler) startSession(w http.ResponseWriter) { h.startSessionAs(w, &session{}) }

// startSessionAs is startSession for the session s (its csrf and seen set
// here).
func (h *Handler) startSessionAs(w http.ResponseWriter, s *session) {
	id := randomHex(32)
	s.csrf, s.seen = randomHex(32), h.d.Clock.Now()
	h.mu.Lock()
	h.sessions[id] = s
	h.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// sessionOf is the request's live session, or nil.
func (h *Handler) sessionOf(r *http.Request) *session {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil
	}
	now := h.d.Clock.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[c.Value]
	if s == nil {
		return nil
	}
	if now.Sub(s.seen) > h.o.SessionIdle || !s.expires.IsZero() && !now.Before(s.expires) {
		delete(h.sessions, c.Value)
		return nil
	}
	s.seen = now
	return s
}

// postAllowed checks a state-changing request: the session's CSRF token in
// the form, and no foreign site in Sec-Fetch-Site (Origin was checked with
// Host).
func (h *Handler) postAllowed(r *http.Request, s *session) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	r.Body = http.MaxBytesReader(nil, r.Body, 64<<10)
	tok := r.PostFormValue("csrf")
	return tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.csrf)) == 1
}

// render executes one page's template.
func (h *Handler) render(w http.ResponseWriter, status int, page string, data map[string]any) {
	t := h.pages[page]
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", data); err != nil {
		h.log.Warn("web view: render", "page", page, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// parsePages parses the layout with each page's template.
func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{"bytes": humanBytes, "short": short, "base": baseName}
	layout := template.Must(template.New("layout").Funcs(funcs).ParseFS(assets, "assets/layout.html"))
	pages := map[string]*template.Template{}
	names, _ := fs.Glob(assets, "assets/page_*.html")
	for _, n := range names {
		page := strings.TrimSuffix(strings.TrimPrefix(n, "assets/page_"), ".html")
		pages[page] = template.Must(template.Must(layout.Clone()).ParseFS(assets, n))
	}
	return pages
}

// errText is an error as a page shows it: the domain's message, which
// names no absolute path.
func errText(err error) string {
	var e *domain.Error
	if errors.As(err, &e) {
		return baseNames(e.Error())
	}
	return baseNames(err.Error())
}
