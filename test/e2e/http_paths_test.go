package e2e_test

//lint:file-ignore SA1019 MCP logging is deprecated as of protocol 2026-07-28 (SEP-2577) but stays functional, and the server still sends log messages to clients that ask: this test checks what they carry

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// httpRecorder keeps every response body the client reads, byte for byte:
// answers, errors and the event stream's notifications alike.
type httpRecorder struct {
	base http.RoundTripper
	seen e2e.Buffer
}

func (r *httpRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, &r.seen), resp.Body}
	return resp, nil
}

// httpRecordedClient connects a client over HTTP, with the standalone
// event stream (where log messages arrive), through a recorder.
func httpRecordedClient(t *testing.T, s *httpServer) (*mcp.ClientSession, *httpRecorder) {
	t.Helper()
	rec := &httpRecorder{base: http.DefaultTransport}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-paths", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	// Log messages a client asks for (logging/setLevel) arrive on a
	// session's event stream: the session era's.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url(), HTTPClient: &http.Client{Transport: rec}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err, "server stderr:\n%s", s.stderr.String())
	t.Cleanup(func() { _ = cs.Close() })
	return cs, rec
}

// Over HTTP no answer names an absolute path: every tool, its errors, the
// audit rows an agent can read back and the log messages a client asked
// for name snapshots relative to their folder and files by their names.
// Stdio keeps the absolute snapshot path (TestEveryToolOverStdio): the
// person reading it is on this machine.
func TestHTTPAnswersNameNoAbsolutePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "mem.db")
	s := httpStart(t, db, nil)
	cs, rec := httpRecordedClient(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	require.NoError(t, cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}))
	_, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)

	answers := map[string]string{}
	run := func(tool string, args map[string]any) string {
		t.Helper()
		out, _, err := call(cs, tool, args)
		require.NoError(t, err, "%s", tool)
		answers[tool] += out + "\n"
		return out
	}
	run("write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
	run("write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('an apple'), ('a pear')"})
	run("read_query", map[string]any{"query": "SELECT * FROM notes"})
	run("read_query", map[string]any{"query": "SELECT file FROM pragma_database_list"})
	run("read_query", map[string]any{"query": "SELECT * FROM nowhere"})
	run("list_tables", nil)
	run("describe_table", map[string]any{"table": "notes"})
	run("describe_table", map[string]any{"table": "nowhere"})
	run("get_schema", nil)
	run("create_view", map[string]any{"name": "v", "select_sql": "SELECT body FROM notes"})
	run("append_event", map[string]any{"content": "seeded"})
	run("checkpoint", map[string]any{"summary": "ready"})
	run("get_resume_context", nil)
	run("verify_chain", nil)
	run("search_text", map[string]any{"pattern": "apple", "table": "notes"})
	run("search_text", map[string]any{"pattern": "(", "table": "notes"})
	out := run("destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "cleanup"})
	_, name, ok := strings.Cut(out, "; snapshot: ")
	require.True(t, ok, out)
	assert.Regexp(t, `^mem\.\d{8}T\d{6}\.\d{3}Z\.db$`, name, "the snapshot by its name in the folder: %s", out)
	_, err = os.Stat(filepath.Join(dir, "mem.snapshots", name))
	require.NoError(t, err, "a name that is there")
	snap := run("snapshot", map[string]any{"reason": "by hand"})
	assert.Regexp(t, `^ok: snapshot written: mem\.\d{8}T\d{6}\.\d{3}Z\.db$`, snap)
	run("read_query", map[string]any{"query": "SELECT tool, error, detail FROM query_log", "limit": 100})
	require.Eventually(t, func() bool { return strings.Contains(rec.seen.String(), "snapshot written") },
		callTimeout, 20*time.Millisecond, "the log message about the snapshot reached the client")

	// A snapshot folder that cannot be used: the errors name it by its name.
	blocked := filepath.Join(dir, "blocked.snapshots")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	s2 := httpStart(t, filepath.Join(dir, "other.db"), nil, "--snapshot-dir", blocked)
	cs2, rec2 := httpRecordedClient(t, s2)
	mustCall(t, cs2, "write_query", map[string]any{"query": "CREATE TABLE t(x)"})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"destructive_query", map[string]any{"query": "DROP TABLE t", "reason": "r"}}, {"snapshot", nil}} {
		out, isErr, err := call(cs2, c.tool, c.args)
		require.NoError(t, err)
		assert.True(t, isErr, out)
		assert.Contains(t, out, "the snapshot folder blocked.snapshots is a file", c.tool)
	}

	for what, text := range map[string]string{"the first server's bodies": rec.seen.String(), "the second server's bodies": rec2.seen.String()} {
		require.NotEmpty(t, text)
		assert.NotContains(t, text, dir, "%s name the test's folder", what)
	}
	for tool, text := range answers {
		assert.NotContains(t, text, dir, tool)
	}
	assert.Contains(t, s.stderr.String(), filepath.Join(dir, "mem.snapshots"), "the operator's log keeps the absolute path")
}
