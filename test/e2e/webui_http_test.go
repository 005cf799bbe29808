package e2e_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server started with --http serves the web view at /ui/ beside /mcp:
// its bearer token logs in, a form without the CSRF token changes nothing,
// a foreign Host is refused, and MCP is served as before.
func TestWebViewUnderHTTP(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/agent.db"
	s := httpStart(t, db, nil, "--auth-token-file", httpTokenFile(t, dir))
	base := "http://" + s.addr + "/ui/"
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp, err := client.Get(base)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/ui/login", resp.Header.Get("Location"))

	resp, err = client.PostForm(base+"login", url.Values{"token": {"wrong-token-0123456789"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Empty(t, resp.Cookies())

	resp, err = client.PostForm(base+"login", url.Values{"token": {httpToken}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Len(t, resp.Cookies(), 1)
	cookie := resp.Cookies()[0]

	get := func(host string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, base, nil)
		require.NoError(t, err)
		req.Host = host
		req.AddCookie(cookie)
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, body := get(s.addr)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Memory chain")
	assert.NotContains(t, body, dir, "no absolute path")
	code, _ = get("evil.test")
	assert.Equal(t, http.StatusForbidden, code, "a rebinding name")

	// An undo form without the CSRF token changes nothing.
	cs := httpConnect(t, s, httpToken)
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1), (2)"})
	mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM t", "reason": "test"})
	req, err := http.NewRequest(http.MethodPost, base+"undo", strings.NewReader(url.Values{"confirm": {"yes"}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(cookie)
	resp, err = client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Equal(t, 0, httpCount(t, db, "SELECT count(*) FROM t"), "nothing was restored")

	// An event written over HTTP records its client and session; the
	// event page shows that, and that it was retracted, and the list
	// marks it (docs/decisions.md#provenance, #retractions).
	mustCall(t, cs, "append_event", map[string]any{"content": "over http"})
	mustCall(t, cs, "retract_event", map[string]any{"id": 1, "reason": "a test"})
	assert.Equal(t, 1, httpCount(t, db, "SELECT count(*) FROM memory_provenance WHERE event_id = 1 AND transport = 'http' AND client = 'e2e-http' AND http_session IS NOT NULL"))
	page := func(path string) string {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.AddCookie(cookie)
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	body = page("memory/event?id=1")
	assert.Contains(t, body, "<dt>Written by</dt><dd>e2e-http 1 over http session ")
	assert.Contains(t, body, `<dt>Retracted</dt><dd>by <a href="/ui/memory/event?id=2">#2</a>: a test</dd>`)
	assert.Contains(t, page("memory"), `<span class="retracted">retracted by #2</span>`)
}
