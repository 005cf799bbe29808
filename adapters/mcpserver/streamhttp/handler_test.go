package streamhttp

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

func httpTestHandler(t *testing.T, tools *fake.Tools, o Options) *Handler {
	t.Helper()
	limits := domain.DefaultLimits()
	limits.MaxRequestBytes = 1024
	return New(mcpserver.New(tools, mcpserver.Options{Version: "test", Limits: limits}), o)
}

func TestHTTPHostAndOriginRules(t *testing.T) {
	h := httpTestHandler(t, &fake.Tools{}, Options{Hosts: []string{"MCP.example.test", "10.0.0.5"}})
	for _, c := range []struct {
		host, origin string
		ok           bool
	}{
		{"127.0.0.1:8080", "", true},
		{"localhost:8080", "", true},
		{"LOCALHOST.:8080", "", true},
		{"[::1]:8080", "", true},
		{"127.0.0.2", "", true},
		{"mcp.example.test", "https://mcp.example.test", true},
		{"10.0.0.5:80", "http://10.0.0.5:3000", true},
		{"localhost:8080", "http://localhost:6274", true},
		{"localhost:8080", "http://[::1]:6274", true},
		{"evil.test", "", false},
		{"localhost.evil.test", "", false},
		{"127.0.0.1.nip.io", "", false},
		{"", "", false},
		{"localhost:8080", "null", false},
		{"localhost:8080", "http://evil.test", false},
		{"localhost:8080", "file://", false},
		{"localhost:8080", "chrome-extension://abc", false},
		{"localhost:8080", "http://mcp.example.test.evil.test", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		why := h.checkHost(r)
		assert.Equal(t, c.ok, why == "", "host %q origin %q: %s", c.host, c.origin, why)
		if why != "" {
			assert.Contains(t, why, "--allowed-hosts")
		}
	}
}

func TestHTTPBearerToken(t *testing.T) {
	const token = "0123456789abcdef-token"
	h := httpTestHandler(t, &fake.Tools{}, Options{Token: token})
	for header, ok := range map[string]bool{
		"Bearer " + token:                  true,
		"Bearer  " + token + " ":           true,
		"":                                 false,
		"Bearer":                           false,
		"Bearer ":                          false,
		"bearer " + token:                  true,
		"BEARER " + token:                  true,
		"bEaReR\t" + token:                 false,
		"Bearerx " + token:                 false,
		"Bear " + token:                    false,
		"Basic " + token:                   false,
		"Bearer " + token[:len(token)-1]:   false,
		"Bearer " + token + "x":            false,
		"Bearer " + strings.ToUpper(token): false,
		token:                              false,
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		assert.Equal(t, ok, h.authorized(r), "%q", header)
	}
	assert.True(t, httpTestHandler(t, &fake.Tools{}, Options{}).authorized(httptest.NewRequest(http.MethodPost, "/mcp", nil)), "no token: no authentication")
}

func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:0": true, "[::1]:80": true, "127.1.2.3:1": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:80": false, "192.168.1.5:80": false,
		"example.test:80": false, "127.0.0.1": false, "localhost.evil.test:80": false,
	} {
		assert.Equal(t, want, IsLoopbackAddr(addr), addr)
	}
}

// Session ids are unique even when many sessions open in one second, and
// keep the process session id format.
func TestHTTPSessionIDsAreUnique(t *testing.T) {
	m := newSessionIDs()
	format := regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{4}$`)
	seen := map[string]bool{}
	live := func() map[string]bool { return map[string]bool{} }
	for i := range 3000 {
		id := m.of("mcp-"+strconv.Itoa(i), live)
		require.Regexp(t, format, id)
		require.False(t, seen[id], "id %s given twice", id)
		seen[id] = true
		if i < 10 {
			assert.Equal(t, id, m.of("mcp-"+strconv.Itoa(i), live), "the same session keeps its id")
		}
	}
}

// An oversized POST is refused with 413 under its id, and a tools/call is
// audited under the tool it names, as the stdio guard does.
func TestHTTPOversizedCallIsRefusedAndAudited(t *testing.T) {
	tools := &fake.Tools{}
	srv := httptest.NewServer(httpTestHandler(t, tools, Options{}))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_query","arguments":{"query":"` + strings.Repeat("a", 5000) + `"}}}`
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Contains(t, b.String(), `"id":7`)
	assert.Contains(t, b.String(), "--max-request-bytes")
	assert.Equal(t, 1, tools.Rejected()["write_query"])
}
