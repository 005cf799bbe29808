package e2e_test

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// httpServer is the binary serving MCP over HTTP on a free loopback port.
type httpServer struct {
	cmd    *exec.Cmd
	stderr *e2e.Buffer
	addr   string // host:port it listens on
	exited chan error
}

// httpToken is the bearer token of the tests that use one.
const httpToken = "e2e-token-0123456789abcdef"

var httpAddrRE = regexp.MustCompile(`msg="serving over HTTP" addr=(\S+)`)

// httpStart runs the binary on db with --http 127.0.0.1:0 and args, and
// waits until it logs the address it bound.
func httpStart(t *testing.T, db string, env []string, args ...string) *httpServer {
	t.Helper()
	cmd := e2e.Command(bin, append([]string{"--db", db, "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	s := &httpServer{cmd: cmd, stderr: &e2e.Buffer{}, exited: make(chan error, 1)}
	cmd.Stderr = s.stderr
	require.NoError(t, cmd.Start())
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.exited
	})
	deadline := time.Now().Add(slack.Of(15 * time.Second))
	for time.Now().Before(deadline) {
		if m := httpAddrRE.FindStringSubmatch(s.stderr.String()); m != nil {
			s.addr = m[1]
			return s
		}
		select {
		case err := <-s.exited:
			t.Fatalf("server exited before serving: %v\n%s", err, s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("server did not report its address:\n%s", s.stderr.String())
	return nil
}

// url is the server's MCP endpoint.
func (s *httpServer) url() string { return "http://" + s.addr + "/mcp" }

// stop sends SIGTERM and waits for the exit.
func (s *httpServer) stop(t *testing.T) error {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		s.exited <- err // for Cleanup
		return err
	case <-time.After(slack.Of(30 * time.Second)):
		t.Fatalf("server did not exit after SIGTERM:\n%s", s.stderr.String())
		return nil
	}
}

// httpBearer adds an Authorization header to every request.
type httpBearer struct {
	token string
	base  http.RoundTripper
}

func (b httpBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// httpConnect connects a go-sdk client over Streamable HTTP, sending token
// when it is not empty.
func httpConnect(t *testing.T, s *httpServer, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := httpDial(s, token)
	require.NoError(t, err, "server stderr:\n%s", s.stderr.String())
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func httpDial(s *httpServer, token string) (*mcp.ClientSession, error) {
	hc := &http.Client{Transport: http.DefaultTransport}
	if token != "" {
		hc.Transport = httpBearer{token: token, base: http.DefaultTransport}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	// These tests are about sessions: the client speaks the newest
	// revision that has them (a 2026-07-28 client has none; see
	// http_eras_test.go).
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url(), HTTPClient: hc, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

// httpPost sends one raw JSON-RPC POST to /mcp with the headers given
// (name, value pairs) and returns the status and body.
func httpPost(t *testing.T, s *httpServer, body string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url(), strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		b.Write(buf[:n])
		if rerr != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

// httpInitialize is an initialize request body.
const httpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// httpCount counts rows of a query on the database, read independently.
func httpCount(t *testing.T, db, query string) int {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	require.NoError(t, err)
	defer conn.Close()
	var n int
	require.NoError(t, conn.QueryRow(query).Scan(&n))
	return n
}

// httpTokenFile writes the token to a file and returns its path.
func httpTokenFile(t *testing.T, dir string) string {
	t.Helper()
	p := dir + "/token"
	require.NoError(t, os.WriteFile(p, []byte(httpToken+"\n"), 0o600))
	return p
}
