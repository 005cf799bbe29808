package streamhttp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// httpDo sends one request to the handler and returns status, headers and body.
func httpDo(t *testing.T, h http.Handler, method, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	r := httptest.NewRequest(method, "/mcp", strings.NewReader(body))
	r.Host = "127.0.0.1:8080"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Header(), w.Body.String()
}

const httpTestInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// A request naming a session that is not open (never opened, or ended)
// gets 404, as MCP asks, with a JSON-RPC error body that says why sessions
// end and to initialize again, whatever the method.
func TestHTTPUnknownSessionGets404WithAReason(t *testing.T) {
	h := httpTestHandler(t, &fake.Tools{}, Options{})
	status, hdr, _ := httpDo(t, h, http.MethodPost, httpTestInitialize)
	require.Equal(t, http.StatusOK, status)
	sid := hdr.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	status, _, _ = httpDo(t, h, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", sid)
	require.Equal(t, http.StatusOK, status, "the open session is served")
	status, _, _ = httpDo(t, h, http.MethodDelete, "", "Mcp-Session-Id", sid)
	require.Equal(t, http.StatusNoContent, status, "the client ends its session")

	for _, id := range []string{sid, "never-opened"} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			status, hdr, body := httpDo(t, h, method, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Mcp-Session-Id", id)
			assert.Equal(t, http.StatusNotFound, status, "%s %s", method, id)
			assert.Equal(t, "application/json", hdr.Get("Content-Type"), "%s %s", method, id)
			var reply struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &reply), "%s %s: a JSON-RPC body: %s", method, id, body)
			assert.Equal(t, "2.0", reply.JSONRPC)
			assert.Equal(t, "null", string(reply.ID))
			for _, want := range []string{"unknown session", "send initialize again", "--session-idle-timeout", "--max-sessions", "restarts"} {
				assert.Contains(t, reply.Error.Message, want, "%s %s", method, id)
			}
		}
	}
}

// logLines is an slog handler counting records and keeping their text.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) handler() slog.Handler {
	return slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, string(bytes.TrimSpace(p)))
		return len(p), nil
	}), nil)
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string{}, l.lines...)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Refused requests (401, 403, 413, 404) are logged at a bounded rate: a
// flood of them logs refusalBurst lines, then one per refusalEvery, and
// the next line logged says how many were left out.
func TestHTTPRefusalsAreLoggedAtABoundedRate(t *testing.T) {
	var lines logLines
	limits := domain.DefaultLimits()
	limits.MaxRequestBytes = 1024
	h := New(mcpserver.New(&fake.Tools{}, mcpserver.Options{Version: "test", Limits: limits, Log: slog.New(lines.handler())}),
		Options{Token: "0123456789abcdef-token"})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h.refusals.now = func() time.Time { return now }

	const flood = 200
	for i := range flood {
		headers := []string{}
		body := httpTestInitialize
		switch i % 4 {
		case 1:
			headers = []string{"Authorization", "Bearer 0123456789abcdef-token", "Mcp-Session-Id", "gone"}
		case 2:
			headers = []string{"Authorization", "Bearer 0123456789abcdef-token"}
			body = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`
		}
		status, _, _ := httpDo(t, h, http.MethodPost, body, headers...)
		require.Contains(t, []int{http.StatusUnauthorized, http.StatusNotFound, http.StatusRequestEntityTooLarge}, status)
	}
	r := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	r.Host = "evil.test"
	for range flood {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusForbidden, w.Code)
	}
	got := lines.all()
	assert.Len(t, got, refusalBurst, "a burst, then nothing while the clock stands still")

	now = now.Add(time.Minute)
	status, _, _ := httpDo(t, h, http.MethodPost, httpTestInitialize)
	require.Equal(t, http.StatusUnauthorized, status)
	got = lines.all()
	require.Len(t, got, refusalBurst+1, "time passed: the next refusal is logged")
	assert.Contains(t, got[refusalBurst], "suppressed="+strconv.Itoa(2*flood-refusalBurst), "and says how many were left out")
	assert.Contains(t, got[refusalBurst], "status=401")
}
