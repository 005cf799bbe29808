package frame

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdkRaw marshals v as the SDK makes a response's result (jsonrpc2's
// marshalToRaw: an encoder without HTML escaping, trailing newline cut).
func sdkRaw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// TestAppendMessageMatchesEncodeMessage pins the hand-spliced response to
// the SDK's own encoding, byte for byte, over the kinds of messages and
// texts the server sends: CSV with quotes, separators and newlines, HTML
// characters, control bytes, U+2028, invalid UTF-8 (which both spell as
// U+FFFD), large answers, error and non-integer ids (the SDK's path).
func TestAppendMessageMatchesEncodeMessage(t *testing.T) {
	texts := []string{
		"", "id,name\n1,plain\n", "a,\"b \"\"q\"\"\",c\r\n", "<script>&amp;</script>", "tab\there\x00\x01\x1f",
		"line\u2028sep\u2029", "bad \xff\xfe utf8", "emoji 🎉 é", strings.Repeat("1,item 1,1.25,tag1,1,a short note\n", 2000),
	}
	var msgs []jsonrpc.Message
	ids := []jsonrpc.ID{perf3ID(t, 0), perf3ID(t, 7), perf3ID(t, -3), perf3ID(t, 1<<53), {}}
	sid, err := jsonrpc.MakeID("req-<1>")
	require.NoError(t, err)
	ids = append(ids, sid)
	for _, id := range ids {
		for _, text := range texts {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"t": text}}
			msgs = append(msgs, &jsonrpc.Response{ID: id, Result: sdkRaw(t, res)})
			msgs = append(msgs, &jsonrpc.Response{ID: id, Result: sdkRaw(t, &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}})})
		}
		msgs = append(msgs,
			&jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)},
			&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad <params>"}},
		)
	}
	note, err := jsonrpc.MakeID(nil)
	require.NoError(t, err)
	msgs = append(msgs, &jsonrpc.Request{ID: note, Method: "notifications/message", Params: json.RawMessage(`{"level":"info"}`)},
		&jsonrpc.Request{ID: perf3ID(t, 1), Method: "ping"})
	for i, m := range msgs {
		want, err := jsonrpc.EncodeMessage(m)
		require.NoError(t, err)
		got, err := appendMessage([]byte("prefix"), m)
		require.NoError(t, err)
		assert.Equal(t, "prefix"+string(want), string(got), "message %d", i)
		assert.NotContains(t, string(got), "\n", "message %d: one message, one line", i)
	}
}

// TestAppendMessageNewlineFallsBack: a result holding a raw newline (never
// made by the SDK's encoder) is not spliced, so the line framing holds.
func TestAppendMessageNewlineFallsBack(t *testing.T) {
	m := &jsonrpc.Response{ID: perf3ID(t, 1), Result: json.RawMessage("{\n\"a\": 1\n}")}
	got, err := appendMessage(nil, m)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, string(got))
}

// perf3ID is an integer request id, as the SDK decodes one.
func perf3ID(t *testing.T, n float64) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(n)
	require.NoError(t, err)
	return id
}
