package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// TestGarbageOnStdinIsAnsweredAndTheSessionGoesOn feeds the binary lines
// that are not JSON-RPC messages. Each gets a JSON-RPC error, nothing from
// the garbage comes back as a message, and the session keeps serving: a
// client bug costs one answer, not the agent's whole session.
func TestGarbageOnStdinIsAnsweredAndTheSessionGoesOn(t *testing.T) {
	t.Parallel()
	s := startRaw(t, "--db", newDB(t))
	for _, line := range []string{
		`not json at all {"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"1.0","id":"old","method":"tools/list"}`,
		`42`,
		`[]`,
	} {
		_, err := s.stdin.Write([]byte(line + "\n"))
		require.NoError(t, err)
	}
	out, isErr := s.callTool(t, "read_query", map[string]any{"query": "SELECT 1 AS still_here"})
	assert.False(t, isErr)
	assert.Equal(t, "still_here\n1\n# 1 rows", out)
	require.NoError(t, s.stdin.Close())
	s.wait(t, 3*time.Second)

	ids := checkJSONRPCStream(t, []byte(s.stdout.String()))
	assert.NotContains(t, ids, "7", "text from the garbage line must not come back as a message")
	assert.Contains(t, ids, `"old"`, "a message with an id is answered under that id")
	var codes []int
	for _, line := range strings.Split(strings.TrimSpace(s.stdout.String()), "\n") {
		var r response
		if json.Unmarshal([]byte(line), &r) == nil && r.Error != nil {
			codes = append(codes, r.Error.Code)
		}
	}
	assert.Equal(t, []int{-32700, -32600, -32600, -32600}, codes, "parse error for the non-JSON line, invalid request for the rest")
	assert.Contains(t, s.stderr.String(), "refused an inbound frame", "each refusal is logged on stderr")
}

// TestOversizedRequestIsAToolErrorAndAudited sends a tool call larger than
// --max-request-bytes. The server refuses it without decoding it (decoding
// costs many times its size), as a tool error with the call's own id and a
// query_log row, and the next call works.
func TestOversizedRequestIsAToolErrorAndAudited(t *testing.T) {
	t.Parallel()
	s := startRaw(t, "--db", newDB(t), "--max-request-bytes", "4096")
	out, isErr := s.callTool(t, "append_event", map[string]any{"content": strings.Repeat("x", 10000)})
	assert.True(t, isErr)
	assert.Regexp(t, `^request is 10\d\d\d bytes, over the server's limit of 4096 bytes \(--max-request-bytes\); send less per call`, out)

	out, isErr = s.callTool(t, "read_query", map[string]any{"query": "SELECT tool, ok, error FROM query_log ORDER BY id DESC LIMIT 1"})
	assert.False(t, isErr, out)
	assert.Contains(t, out, `append_event,0,"request is 10`, "the refused call is audited under its tool")

	out, isErr = s.callTool(t, "read_query", map[string]any{"query": "SELECT count(*) AS events FROM memory_events"})
	assert.False(t, isErr, out)
	assert.Equal(t, "events\n0\n# 1 rows", out, "nothing of the refused call was stored")

	// A notification that large is dropped without an answer.
	_, err := s.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"` + strings.Repeat("p", 9000) + `"}}` + "\n"))
	require.NoError(t, err)
	out, isErr = s.callTool(t, "read_query", map[string]any{"query": "SELECT 1 AS ok"})
	assert.False(t, isErr)
	assert.Equal(t, "ok\n1\n# 1 rows", out)
	require.NoError(t, s.stdin.Close())
	s.wait(t, 3*time.Second)
	checkJSONRPCStream(t, []byte(s.stdout.String()))
}

// TestPipedScriptGetsEveryAnswer writes a whole session to stdin at once
// and closes it, as a shell script piping into the server does. The SDK
// drops requests still in flight when its input ends; the server lets them
// be answered first, and still exits promptly.
func TestPipedScriptGetsEveryAnswer(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_query","arguments":{"query":"CREATE TABLE t (a)"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"append_event","arguments":{"content":"from a script"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT count(*) AS n FROM memory_events"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
	}
	cmd := e2e.Command(bin, "--db", newDB(t))
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stdout, stderr e2e.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	require.NoError(t, cmd.Run(), "stderr: %s", &stderr)
	took := time.Since(began)
	assert.Less(t, took, slack.Of(exitBudget+time.Second), "exits promptly once its input ends")
	ids := checkJSONRPCStream(t, []byte(stdout.String()))
	assert.ElementsMatch(t, []string{"1", "2", "3", "4", "5"}, ids, "every request is answered; stderr: %s", &stderr)
	// The SDK runs calls concurrently, so the read may come before the append.
	assert.Regexp(t, `n\\n[01]\\n# 1 rows`, stdout.String(), "the read was answered")
}
