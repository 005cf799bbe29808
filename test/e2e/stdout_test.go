package e2e_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lookalike is row data that would derail a client if the server ever wrote
// it to stdout unescaped: it looks exactly like a JSON-RPC response.
const lookalike = `{"jsonrpc":"2.0","id":99,"result":{}}`

// csvQuoted is a CSV field as docs/decisions.md#csv quotes it.
func csvQuoted(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// checkJSONRPCStream asserts that every byte of stdout belongs to
// newline-terminated lines that each hold exactly one JSON-RPC 2.0 message,
// and returns the ids of the responses in order.
func checkJSONRPCStream(t *testing.T, stdout []byte) []string {
	t.Helper()
	if len(stdout) == 0 {
		return nil
	}
	assert.Equal(t, byte('\n'), stdout[len(stdout)-1], "stdout ends with a complete line")
	var ids []string
	for i, line := range bytes.Split(bytes.TrimSuffix(stdout, []byte("\n")), []byte("\n")) {
		dec := json.NewDecoder(bytes.NewReader(line))
		var msg map[string]json.RawMessage
		if !assert.NoError(t, dec.Decode(&msg), "stdout line %d is not a JSON object: %q", i+1, line) {
			continue
		}
		assert.False(t, dec.More(), "stdout line %d holds more than one JSON value: %q", i+1, line)
		assert.Equal(t, `"2.0"`, string(msg["jsonrpc"]), "line %d: %q", i+1, line)
		_, hasMethod := msg["method"]
		id, hasID := msg["id"]
		_, hasResult := msg["result"]
		_, hasError := msg["error"]
		switch {
		case hasMethod: // a request or notification from the server
		case hasID && hasResult != hasError:
			ids = append(ids, string(id))
		default:
			assert.Fail(t, "not a JSON-RPC message", "line %d: %q", i+1, line)
		}
	}
	return ids
}

// TestStdoutCarriesOnlyJSONRPC drives the binary by hand and inspects every
// byte it writes to stdout: successes, tool errors, protocol errors and row
// data that looks like JSON-RPC (with newlines) must all arrive as escaped
// data inside exactly one message per line (docs/decisions.md#details).
func TestStdoutCarriesOnlyJSONRPC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default logging", nil},
		{"verbose logging", []string{"--verbose"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startRaw(t, append([]string{"--db", newDB(t)}, tc.args...)...)
			tools := s.request(t, "tools/list", map[string]any{})
			assert.Nil(t, tools.Error)

			value := lookalike + "\n" + `{"jsonrpc":"2.0","id":100,"result":{"content":[]}}`
			for _, q := range []string{
				"CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT)",
				"INSERT INTO docs (body) VALUES ('" + value + "')",
				"INSERT INTO docs (body) VALUES (char(1, 27) || 'x' || char(8232, 8233, 127))",
			} {
				out, isErr := s.callTool(t, "write_query", map[string]any{"query": q})
				assert.False(t, isErr, out)
			}
			out, isErr := s.callTool(t, "read_query", map[string]any{"query": "SELECT body FROM docs ORDER BY id"})
			assert.False(t, isErr)
			assert.Equal(t, "body\n"+csvQuoted(value)+"\n\x01\x1bx\u2028\u2029\x7f\n# 2 rows", out)

			out, isErr = s.callTool(t, "append_event", map[string]any{"content": value, "kind": "note"})
			assert.False(t, isErr, out)
			out, isErr = s.callTool(t, "get_resume_context", map[string]any{})
			assert.False(t, isErr)
			assert.Contains(t, out, csvQuoted(value))
			out, isErr = s.callTool(t, "search_text", map[string]any{"pattern": `"id":99`, "table": "docs", "fixed_strings": true})
			assert.False(t, isErr)
			assert.Contains(t, out, `""id"":99`)

			// Tool errors, including one whose message echoes the lookalike.
			out, isErr = s.callTool(t, "read_query", map[string]any{"query": `SELECT * FROM "` + strings.ReplaceAll(lookalike, `"`, `""`) + `"`})
			assert.True(t, isErr)
			assert.Equal(t, "SQLite error: no such table: "+lookalike, out)
			_, isErr = s.callTool(t, "read_query", map[string]any{"query": "SELECT 1", "limit": "ten"})
			assert.True(t, isErr)
			_, isErr = s.callTool(t, "write_query", map[string]any{"query": "DELETE FROM docs"})
			assert.True(t, isErr)

			// Protocol errors are JSON-RPC errors, still one line each.
			unknownTool := s.request(t, "tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}})
			assert.NotNil(t, unknownTool.Error, "an unknown tool is a protocol error")
			unknownMethod := s.request(t, "no/such/method", map[string]any{})
			if assert.NotNil(t, unknownMethod.Error) {
				assert.Equal(t, -32601, unknownMethod.Error.Code)
			}
			lastID := s.nextID - 1

			require.NoError(t, s.stdin.Close())
			assert.Equal(t, 0, s.wait(t, 3*time.Second))

			ids := checkJSONRPCStream(t, []byte(s.stdout.String()))
			want := make([]string, lastID)
			for i := range want {
				want[i] = strconv.Itoa(i + 1)
			}
			assert.Equal(t, want, ids, "each request answered exactly once, and nothing else answered (no id 99 or 100)")
			assert.NotEmpty(t, s.stderr.String(), "logs go to stderr")
		})
	}
}
