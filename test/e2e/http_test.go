package e2e_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// A missing or wrong token is refused with 401 before anything runs: a
// tools/call with the wrong token leaves no table, no audit row; the right
// token works, and the token never appears in the log.
func TestHTTPAuth(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	s := httpStart(t, db, nil, "--auth-token-file", httpTokenFile(t, dir), "-v") // debug logs must not carry it either

	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_query","arguments":{"query":"CREATE TABLE pwned(x)"}}}`
	for name, headers := range map[string][]string{
		"missing":        nil,
		"wrong":          {"Authorization", "Bearer " + strings.Repeat("x", len(httpToken))},
		"prefix":         {"Authorization", "Bearer " + httpToken[:len(httpToken)-1]},
		"longer":         {"Authorization", "Bearer " + httpToken + "x"},
		"not bearer":     {"Authorization", "Basic " + httpToken},
		"token as query": {"X-Token", httpToken},
	} {
		for _, body := range []string{httpInitialize, call} {
			status, text := httpPost(t, s, body, headers...)
			assert.Equal(t, http.StatusUnauthorized, status, name)
			assert.Contains(t, text, "Authorization: Bearer", name)
			assert.Contains(t, text, "--auth-token-file", name)
		}
	}
	assert.Zero(t, httpCount(t, db, "SELECT count(*) FROM query_log WHERE tool <> 'http' OR ok = 1"), "nothing ran")
	// Each refusal is audited as a row under no tool ("http"), at the
	// refusal log's rate: 12 refusals, at most 10 at once.
	refused := httpCount(t, db, "SELECT count(*) FROM query_log WHERE tool = 'http'")
	assert.True(t, refused >= 1 && refused <= 12, "refusal rows: %d", refused)
	assert.Zero(t, httpCount(t, db, "SELECT count(*) FROM sqlite_schema WHERE name = 'pwned'"))

	_, err := httpDial(s, "")
	require.Error(t, err, "a client without the token cannot connect")
	cs := httpConnect(t, s, httpToken)
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE ok(x)"})
	assert.Equal(t, 1, httpCount(t, db, "SELECT count(*) FROM query_log WHERE tool <> 'http'"))
	assert.NotContains(t, s.stderr.String(), httpToken, "the token is never logged")
}

// Host and Origin headers that do not name this server are refused
// (DNS rebinding, cross-site requests), on /mcp and /healthz alike.
func TestHTTPHostAndOrigin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	s := httpStart(t, db, nil)
	for name, headers := range map[string][]string{
		"rebound host":   {"Host", "evil.example:" + strings.Split(s.addr, ":")[1]},
		"host no port":   {"Host", "attacker.test"},
		"foreign origin": {"Origin", "http://evil.example"},
		"null origin":    {"Origin", "null"},
		"origin file":    {"Origin", "file://"},
		"lookalike":      {"Origin", "http://localhost.evil.example"},
	} {
		status, text := httpPost(t, s, httpInitialize, headers...)
		assert.Equal(t, http.StatusForbidden, status, name)
		assert.Contains(t, text, "--allowed-hosts", name)
	}
	assert.Zero(t, httpCount(t, db, "SELECT count(*) FROM query_log"))
	status, _ := httpPost(t, s, httpInitialize, "Origin", "http://localhost:6274")
	assert.Equal(t, http.StatusOK, status, "a loopback origin (e.g. the MCP Inspector) is accepted")
	status, _ = httpPost(t, s, httpInitialize, "Host", "localhost:"+strings.Split(s.addr, ":")[1])
	assert.Equal(t, http.StatusOK, status)

	s2 := httpStart(t, filepath.Join(t.TempDir(), "m.db"), nil, "--allowed-hosts", "mcp.example.test")
	status, _ = httpPost(t, s2, httpInitialize, "Host", "mcp.example.test", "Origin", "https://mcp.example.test")
	assert.Equal(t, http.StatusOK, status, "--allowed-hosts admits a name")
	status, _ = httpPost(t, s2, httpInitialize, "Host", "other.example.test")
	assert.Equal(t, http.StatusForbidden, status)
}

// Two agents append to one chain at once over HTTP: the chain stays linear
// and each event and audit row carries its own session's id.
func TestHTTPTwoClientsShareOneChain(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	s := httpStart(t, db, nil)
	const perClient = 25
	clients := []*mcp.ClientSession{httpConnect(t, s, ""), httpConnect(t, s, "")}
	var wg sync.WaitGroup
	errs := make(chan error, 2*perClient)
	for c, cs := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perClient {
				out, isErr, err := call(cs, "append_event", map[string]any{"content": fmt.Sprintf("client %d event %d", c, i), "kind": fmt.Sprintf("c%d", c)})
				if err == nil && isErr {
					err = fmt.Errorf("tool error: %s", out)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	out := mustCall(t, clients[0], "verify_chain", nil)
	assert.Contains(t, out, `"ok": true`)
	assert.Contains(t, out, fmt.Sprintf(`"events": %d`, 2*perClient))

	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	require.NoError(t, err)
	defer conn.Close()
	sessions := map[string]string{} // kind -> session
	rows, err := conn.Query("SELECT DISTINCT kind, session FROM memory_events")
	require.NoError(t, err)
	for rows.Next() {
		var kind, sess string
		require.NoError(t, rows.Scan(&kind, &sess))
		_, dup := sessions[kind]
		assert.False(t, dup, "all of one client's events carry one session id")
		sessions[kind] = sess
	}
	require.NoError(t, rows.Err())
	require.Len(t, sessions, 2)
	assert.NotEqual(t, sessions["c0"], sessions["c1"], "each client session has its own id")
	for kind, sess := range sessions {
		assert.Regexp(t, `^\d{8}T\d{6}Z-[0-9a-f]{4}$`, sess)
		var n int
		require.NoError(t, conn.QueryRow("SELECT count(*) FROM query_log WHERE tool = 'append_event' AND session = ?", sess).Scan(&n))
		assert.Equal(t, perClient, n, "the audit rows of %s carry its session id", kind)
	}
}

// A body over --max-request-bytes is refused with 413, unread, and nothing
// runs; the call is audited and the client keeps its session. Batches and
// duplicate keys are refused with the stdio guard's messages.
func TestHTTPBodyLimitAndFrameRules(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	s := httpStart(t, db, nil, "--max-request-bytes", "4096")
	cs := httpConnect(t, s, "")
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE t(x)"})
	big := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_query","arguments":{"query":"INSERT INTO t VALUES ('` + strings.Repeat("a", 8000) + `')"}}}`
	status, text := httpPost(t, s, big)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	assert.Contains(t, text, "--max-request-bytes")
	out, isErr, err := call(cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES ('" + strings.Repeat("a", 8000) + "')"})
	require.Error(t, err, "the SDK client sees the 413 as an error: %s %v", out, isErr)
	assert.Contains(t, err.Error(), "--max-request-bytes", "and shows the reason")
	assert.Zero(t, httpCount(t, db, "SELECT count(*) FROM t"))

	status, text = httpPost(t, s, `[`+httpInitialize+`]`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, text, "batches are not supported")
	status, text = httpPost(t, s, `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, text, "appears twice")
	assert.Equal(t, 1, httpCount(t, db, "SELECT count(*) FROM query_log WHERE ok = 1"), "only the CREATE TABLE ran")
	assert.Equal(t, 2, httpCount(t, db, "SELECT count(*) FROM query_log WHERE ok = 0 AND tool = 'write_query' AND error LIKE '%--max-request-bytes%'"),
		"each oversized call is audited, as over stdio")
	mustCall(t, cs, "read_query", map[string]any{"query": "SELECT 1"})
}

// --read-only works the same over HTTP: only the read tools are offered.
func TestHTTPReadOnly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	w := start(t, db)
	mustCall(t, w.Session, "write_query", map[string]any{"query": "CREATE TABLE t(x)"})
	require.NoError(t, w.Session.Close())

	s := httpStart(t, db, nil, "--read-only")
	cs := httpConnect(t, s, "")
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	assert.Contains(t, names, "read_query")
	assert.NotContains(t, names, "write_query")
	_, _, err = call(cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1)"})
	require.Error(t, err, "an unknown tool")
	mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM t"})
	assert.Zero(t, httpCount(t, db, "SELECT count(*) FROM t"))
}

// SIGTERM with a call in flight: the server stops taking requests, the call
// completes and is answered, and the process exits 0.
func TestHTTPGracefulShutdown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	s := httpStart(t, db, nil, "--query-timeout", "30")
	cs := httpConnect(t, s, "")
	type answer struct {
		out   string
		isErr bool
		err   error
	}
	done := make(chan answer, 1)
	base := httpCPU(s)
	go func() {
		out, isErr, err := call(cs, "read_query", map[string]any{"query": httpSlowQuery})
		done <- answer{out, isErr, err}
	}()
	require.Eventually(t, func() bool { return httpCPU(s) > base+200*time.Millisecond }, slack.Of(10*time.Second), 5*time.Millisecond)
	start := time.Now()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	require.Eventually(t, func() bool {
		_, err := net.DialTimeout("tcp", s.addr, time.Second)
		return err != nil
	}, slack.Of(5*time.Second), 10*time.Millisecond, "no new connections once shutting down")
	select {
	case a := <-done:
		t.Fatalf("the call ended before the listener closed: %+v", a)
	default:
	}
	a := <-done
	answered := time.Since(start)
	require.NoError(t, s.stop(t), "exit status 0:\n%s", s.stderr.String())
	require.NoError(t, a.err)
	assert.False(t, a.isErr, a.out)
	assert.Contains(t, a.out, "3000000", "the call in flight completed")
	t.Logf("answered %.2fs, exited %.2fs after SIGTERM", answered.Seconds(), time.Since(start).Seconds())
	assert.Equal(t, 1, httpCount(t, db, "SELECT count(*) FROM query_log WHERE ok = 1"))
}

// httpSlowQuery keeps a call busy for a while (about a second here).
const httpSlowQuery = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3000000) SELECT count(*) AS n FROM c"

// httpCPU is the server's CPU time so far: a call in flight shows as CPU
// burnt, since the slot wait is not visible from outside.
func httpCPU(s *httpServer) time.Duration {
	cpu, _ := e2e.TimeCPU(s.cmd.Process.Pid)
	return cpu
}

// At --max-sessions, a new session closes the one idle longest; when every
// session has a call in flight, it is refused with 503 naming the flag.
func TestHTTPSessionLimit(t *testing.T) {
	s := httpStart(t, filepath.Join(t.TempDir(), "m.db"), nil, "--max-sessions", "1", "--query-timeout", "30")
	cs := httpConnect(t, s, "")
	mustCall(t, cs, "list_tables", nil)
	done := make(chan string, 1)
	base := httpCPU(s)
	go func() {
		out, _, _ := call(cs, "read_query", map[string]any{"query": httpSlowQuery})
		done <- out
	}()
	require.Eventually(t, func() bool { return httpCPU(s) > base+200*time.Millisecond }, slack.Of(10*time.Second), 5*time.Millisecond)
	status, text := httpPost(t, s, httpInitialize)
	assert.Equal(t, http.StatusServiceUnavailable, status, "the only session is busy")
	assert.Contains(t, text, "--max-sessions")
	assert.Contains(t, <-done, "3000000", "the busy session's call completes")

	// The answer can reach the client a moment before its request ends.
	require.Eventually(t, func() bool {
		status, _ := httpPost(t, s, httpInitialize)
		return status == http.StatusOK
	}, slack.Of(5*time.Second), 20*time.Millisecond, "once idle, the session makes room")
	_, _, err := call(cs, "list_tables", nil)
	assert.Error(t, err, "the evicted session is gone")
	assert.Contains(t, s.stderr.String(), "closed the session idle longest")
}

// A message without a session id that is not initialize is refused with
// 400 and opens no session: the SDK would open one for it, counted against
// --max-sessions but never idle, so that a concurrent initialize at the
// limit failed with 503 (found as a flaky TestHTTPSessionLimit).
func TestHTTPSessionlessMessagesOpenNoSession(t *testing.T) {
	s := httpStart(t, filepath.Join(t.TempDir(), "m.db"), nil, "--max-sessions", "1")
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
	} {
		status, text := httpPost(t, s, body)
		assert.Equal(t, http.StatusBadRequest, status, body)
		assert.Contains(t, text, "initialize", body)
	}
	cs := httpConnect(t, s, "")
	mustCall(t, cs, "list_tables", nil)
	assert.NotContains(t, s.stderr.String(), "refused a new session")
}

// Listening beyond loopback needs a token: the server refuses to start,
// in one line naming the flag, before it opens anything.
func TestHTTPNonLoopbackNeedsToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		cmd := e2e.Command(bin, "--db", filepath.Join(t.TempDir(), "m.db"), "--http", addr)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, addr)
		assert.Equal(t, 2, ee.ExitCode(), addr)
		assert.Contains(t, string(out), "--auth-token-file", addr)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(string(out)), "\n")+1, "one line: %s", out)
	}
	cmd := e2e.Command(bin, "--db", filepath.Join(t.TempDir(), "m.db"), "--http", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, "MCP_SQLITE_AUTH_TOKEN=tiny7")
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "MCP_SQLITE_AUTH_TOKEN")
	assert.NotContains(t, string(out), "tiny7", "the token is not echoed")
}
