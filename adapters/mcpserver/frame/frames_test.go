package frame

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFrameScannerFindsIDMethodAndTool(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, frame      string
		id, method, tool string
	}{
		{"SDK order", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"append_event","arguments":{"content":"` + big + `"}}}`, `7`, "tools/call", "append_event"},
		{"id after the params", `{"method":"tools/call","params":{"arguments":{"content":"` + big + `"},"name":"read_query"},"jsonrpc":"2.0","id":"abc"}`, `"abc"`, "tools/call", "read_query"},
		{"whitespace everywhere", "{ \"id\" : -3 ,\n \"method\" : \"ping\" }", `-3`, "ping", ""},
		{"keys inside arguments are not the frame's", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{"id":99,"name":"evil","method":"x"}},"id":1}`, `1`, "tools/call", "t"},
		{"quotes and braces inside strings", `{"params":{"arguments":{"q":"\"id\":5, } ] {\\"},"name":"n"},"id":2,"method":"tools/call"}`, `2`, "tools/call", "n"},
		{"escaped key is decoded", `{"\u0069d":4,"method":"m"}`, `4`, "m", ""},
		{"an id too long is dropped", `{"id":"` + strings.Repeat("9", 200) + `","method":"m"}`, ``, "m", ""},
		{"an object id is dropped", `{"id":{"a":1},"method":"m"}`, ``, "m", ""},
		{"null id is no id", `{"id":null,"method":"m"}`, ``, "m", ""},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``, "notifications/initialized", ""},
		{"a batch keeps nothing", `[{"id":1,"method":"m"}]`, ``, "", ""},
		{"garbage", `not json "id": 5`, ``, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s frameScanner
			// Fed in small pieces, as the guard feeds reads.
			for b := []byte(tc.frame); len(b) > 0; {
				n := min(len(b), 7)
				s.feed(b[:n])
				b = b[n:]
			}
			f := s.fields()
			assert.Equal(t, tc.id, string(f.id))
			assert.Equal(t, tc.method, f.method)
			assert.Equal(t, tc.tool, f.tool)
		})
	}
}

// guardOver runs input through a guard with the given cap, read as
// production reads it (the stdio Connection's Read, which the SDK calls),
// and returns the messages it hands on, each encoded as the SDK encodes it
// on a line of its own, the refusals it saw and the replies it wrote.
func guardOver(t *testing.T, input string, max int) (passed string, refused []refusal, replies string) {
	t.Helper()
	var out bytes.Buffer
	g := newFrameGuard(io.NopCloser(strings.NewReader(input)), &out, max, func(r refusal) []byte {
		refused = append(refused, r)
		return []byte("reply " + string(r.fields.id) + "\n")
	}, nil, slog.New(slog.DiscardHandler), nil)
	c, err := (&guardTransport{guard: g, out: nopWriteCloser{io.Discard}}).Connect(context.Background())
	require.NoError(t, err)
	defer c.Close()
	var got strings.Builder
	for {
		msg, err := c.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		b, err := jsonrpc.EncodeMessage(msg)
		require.NoError(t, err)
		got.Write(b)
		got.WriteByte('\n')
	}
	return got.String(), refused, out.String()
}

// nopWriteCloser is a writer with a Close that does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func TestFrameGuardPassesMessagesAndAnswersTheRest(t *testing.T) {
	t.Parallel()
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	huge := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_event","arguments":{"content":"` + strings.Repeat("é", 100000) + `"}}}`
	input := strings.Join([]string{
		ping,
		"",
		"not json at all",
		huge,
		`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
		`[]`,
		"  " + ping + "  \r",
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`, // the last line has no newline
	}, "\n")
	passed, refused, replies := guardOver(t, input, 1000)
	assert.Equal(t, ping+"\n"+ping+"\n"+`{"jsonrpc":"2.0","id":4,"method":"ping"}`+"\n", passed)
	require.Len(t, refused, 4)
	assert.Contains(t, refused[0].reason, "not JSON")
	assert.Equal(t, -32700, refused[0].code)
	assert.Contains(t, refused[1].reason, "over the server's limit of 1000 bytes")
	assert.Contains(t, refused[1].reason, "request is 200"+"") // 100000 two-byte runes and the envelope
	assert.Equal(t, frameFields{id: json.RawMessage(`2`), hasID: true, method: "tools/call", tool: "append_event"}, refused[1].fields)
	assert.Equal(t, -32600, refused[2].code)
	assert.Equal(t, `3`, string(refused[2].fields.id))
	assert.Contains(t, refused[3].reason, "batch")
	assert.Equal(t, "reply \nreply 2\nreply 3\nreply \n", replies)
}

func TestFrameGuardAtTheCapExactly(t *testing.T) {
	t.Parallel()
	frame := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("p", 100) + `"}}`
	passed, refused, _ := guardOver(t, frame+"\n", len(frame)+1)
	assert.Equal(t, frame+"\n", passed, "a frame of exactly the cap, newline included, passes")
	assert.Empty(t, refused)
	passed, refused, _ = guardOver(t, frame+"\n", len(frame))
	assert.Empty(t, passed, "one byte more is refused")
	assert.Len(t, refused, 1)
}
