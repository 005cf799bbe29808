package streamhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/streamhttp"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// auditTools is a ports.Tools that records the audit session id of each
// call and refusal, as the core would write it, and the tool the last one
// reached; read_query and write_query answer "stub answer from" the tool,
// the tools these tests do not call are fake.Tools'.
type auditTools struct {
	fake.Tools
	mu       sync.Mutex
	sessions []string // session of each call, in order
	rejects  []string // tool of each Reject
	writes   []string // session of each write_query that ran
	tool     string   // the tool of the last call or refusal
	rejected error    // the last refusal's error
}

func (a *auditTools) sessionsOfWrites() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.writes...)
}

// note records a call of tool.
func (a *auditTools) note(ctx context.Context, tool string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions = append(a.sessions, ports.SessionFrom(ctx))
	a.tool = tool
}

// last is the tool the last call or refusal reached, and the last
// refusal's error.
func (a *auditTools) last() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tool, a.rejected
}

func (a *auditTools) ReadQuery(ctx context.Context, _ domain.ReadQueryRequest) (ports.Result, error) {
	a.note(ctx, domain.ToolReadQuery)
	return ports.Result{Text: "stub answer from " + domain.ToolReadQuery}, nil
}

func (a *auditTools) WriteQuery(ctx context.Context, _ domain.WriteQueryRequest) (ports.Result, error) {
	a.note(ctx, domain.ToolWriteQuery)
	a.mu.Lock()
	a.writes = append(a.writes, ports.SessionFrom(ctx))
	a.mu.Unlock()
	return ports.Result{Text: "stub answer from " + domain.ToolWriteQuery}, nil
}

func (a *auditTools) Reject(ctx context.Context, tool string, err error) error {
	a.note(ctx, tool)
	a.mu.Lock()
	a.rejects = append(a.rejects, tool)
	a.rejected = err
	a.mu.Unlock()
	return err
}

func (a *auditTools) seen() ([]string, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.sessions...), append([]string(nil), a.rejects...)
}

// stubCall calls tool and returns its text and whether it is an error.
func stubCall(t *testing.T, cs *mcp.ClientSession, tool string, a map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: a})
	require.NoError(t, err)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// serveHTTP serves tools over HTTP on a loopback test server.
func serveHTTP(t *testing.T, tools ports.Tools, o streamhttp.Options) string {
	t.Helper()
	h := streamhttp.New(mcpserver.New(tools, mcpserver.Options{Version: "test", Limits: domain.DefaultLimits()}), o)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.CloseSessions(); srv.Close() })
	return srv.URL + "/mcp"
}

// connectHTTP connects a Go SDK client speaking version ("" = the
// newest, 2026-07-28 and stateless) over Streamable HTTP.
func connectHTTP(t *testing.T, url, name, version string, client *http.Client) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Clients of both protocol eras are served on the same endpoint: the
// 2026-07-28 client without a session (server/discover, then calls
// carrying _meta), the 2025-11-25 client with initialize and a session.
func TestHTTPServesBothProtocolEras(t *testing.T) {
	tools := &auditTools{}
	url := serveHTTP(t, tools, streamhttp.Options{})
	for _, c := range []struct {
		name, version, want string
	}{
		{"stateless", "", "2026-07-28"},
		{"session", "2025-11-25", "2025-11-25"},
		{"oldest", "2025-03-26", "2025-03-26"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := connectHTTP(t, url, "client-"+c.name, c.version, nil)
			assert.Equal(t, c.want, cs.InitializeResult().ProtocolVersion)
			assert.Equal(t, c.version == "", cs.ID() == "", "a stateless client has no session id")
			l, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			assert.Len(t, l.Tools, len(domain.OfferedTools(false, false)))
			out, isErr := stubCall(t, cs, domain.ToolReadQuery, map[string]any{"query": "SELECT 1"})
			assert.False(t, isErr, out)
			assert.Equal(t, "stub answer from "+domain.ToolReadQuery, out)
		})
	}
}

// A stateless client's calls share one audit session id, made by the
// server for the identity it declares; another client gets another id;
// a session-era client keeps its own session's id.
func TestHTTPStatelessClientsGetTheirOwnAuditSession(t *testing.T) {
	tools := &auditTools{}
	url := serveHTTP(t, tools, streamhttp.Options{})
	a := connectHTTP(t, url, "agent-a", "", nil)
	b := connectHTTP(t, url, "agent-b", "", nil)
	s := connectHTTP(t, url, "agent-s", "2025-11-25", nil)
	require.Empty(t, a.ID(), "stateless")
	require.NotEmpty(t, s.ID(), "a session")
	for _, cs := range []*mcp.ClientSession{a, a, b, s, a, s} {
		stubCall(t, cs, domain.ToolReadQuery, map[string]any{"query": "SELECT 1"})
	}
	got, _ := tools.seen()
	require.Len(t, got, 6)
	for _, id := range got {
		assert.Regexp(t, `^\d{8}T\d{6}Z-[0-9a-f]{4}$`, id, "every call names an audit session")
	}
	assert.Equal(t, got[0], got[1], "one stateless client, one id")
	assert.Equal(t, got[0], got[4])
	assert.NotEqual(t, got[0], got[2], "another client, another id")
	assert.Equal(t, got[3], got[5], "the session's own id")
	assert.NotEqual(t, got[0], got[3])
	assert.NotEqual(t, got[2], got[3])
}

// tools/list is cacheable: a real ttlMs on the stateless era.
func TestHTTPToolsListIsCacheable(t *testing.T) {
	url := serveHTTP(t, &auditTools{}, streamhttp.Options{})
	cs := connectHTTP(t, url, "cacher", "", nil)
	l, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, 600000, l.TTLMs)
	assert.Equal(t, "public", l.CacheScope)
}

// Requests of the stateless era beyond --max-sessions in flight get 503
// with Retry-After; the session era's sessions do not count against them.
func TestHTTPStatelessRequestsAreBounded(t *testing.T) {
	block := make(chan struct{})
	entered := make(chan struct{}, 4)
	tools := &blockingTools{entered: entered, release: block}
	url := serveHTTP(t, tools, streamhttp.Options{MaxSessions: 2})
	held := connectHTTP(t, url, "held", "", nil)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = held.CallTool(context.Background(), &mcp.CallToolParams{Name: domain.ToolReadQuery, Arguments: map[string]any{"query": "SELECT 1"}})
		}()
	}
	<-entered
	<-entered
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "5", resp.Header.Get("Retry-After"))
	// A session-era client still connects.
	s := connectHTTP(t, url, "session", "2025-11-25", nil)
	_, err = s.ListTools(context.Background(), nil)
	assert.NoError(t, err)
	close(block)
	wg.Wait()
}

// blockingTools blocks read_query until release is closed.
type blockingTools struct {
	auditTools
	entered chan struct{}
	release chan struct{}
}

func (b *blockingTools) ReadQuery(ctx context.Context, r domain.ReadQueryRequest) (ports.Result, error) {
	b.entered <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return ports.Result{Text: "done"}, nil
}

// A stateless client that hangs up cancels its call.
func TestHTTPStatelessHangUpCancelsTheCall(t *testing.T) {
	entered := make(chan struct{}, 1)
	tools := &cancelTools{entered: entered, cancelled: make(chan struct{})}
	url := serveHTTP(t, tools, streamhttp.Options{})
	cs := connectHTTP(t, url, "quitter", "", nil)
	require.Empty(t, cs.ID(), "stateless")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: domain.ToolReadQuery, Arguments: map[string]any{"query": "SELECT 1"}})
		done <- err
	}()
	<-entered
	cancel()
	<-tools.cancelled // the handler's context ended
	assert.Error(t, <-done)
}

type cancelTools struct {
	auditTools
	entered   chan struct{}
	cancelled chan struct{}
}

func (c *cancelTools) ReadQuery(ctx context.Context, _ domain.ReadQueryRequest) (ports.Result, error) {
	c.entered <- struct{}{}
	<-ctx.Done()
	close(c.cancelled)
	return ports.Result{}, ctx.Err()
}

// progressTools reports progress from read_query.
type progressTools struct{ auditTools }

func (p *progressTools) ReadQuery(ctx context.Context, r domain.ReadQueryRequest) (ports.Result, error) {
	ports.ReportProgress(ctx, 1, 2, "half way")
	return ports.Result{Text: "done"}, nil
}

// Progress reaches a client of either era: in the stateless era on the
// call's own event stream.
func TestHTTPProgressReachesBothEras(t *testing.T) {
	url := serveHTTP(t, &progressTools{}, streamhttp.Options{})
	for _, era := range []string{"", "2025-11-25"} {
		got := make(chan string, 4)
		c := mcp.NewClient(&mcp.Implementation{Name: "progress", Version: "1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { got <- r.Params.Message },
		})
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		require.NoError(t, err)
		assert.Equal(t, era == "", cs.ID() == "")
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: domain.ToolReadQuery, Arguments: map[string]any{"query": "SELECT 1"},
			Meta: mcp.Meta{"progressToken": "p-" + era}})
		require.NoError(t, err)
		assert.Equal(t, "half way", <-got, "era %q", era)
		_ = cs.Close()
	}
}
