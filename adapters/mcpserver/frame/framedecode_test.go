package frame

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainFrames are frames around the edges of plainRequest's rule: each is
// either built by it or left to the SDK's decoder, and either way the
// message must be the one DecodeMessage reads.
var plainFrames = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT 1"}}}`,
	`{"jsonrpc":"2.0","id":"a-b c","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping","params":{}}`,
	`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":0,"method":"ping"}`,
	` { "jsonrpc" : "2.0" , "id" : 7 , "method" : "ping" , "params" : { "_meta" : {} } } `,
	`{"id":3,"method":"ping","jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":"é ü 日本","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"q\"uote","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"<&>","method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`,
	`{"jsonrpc":"2.0","id":1,"method":"pïng"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","Params":{}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","ID":1,"method":"ping"}`,
	`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.00","id":1,"method":"ping"}`,
	`{"jsonrpc":"\u0032.0","id":1,"method":"ping"}`,
	`{"jsonrpc":2.0,"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":1,"method":1}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":"\u0041","method":"ping"}`,
}

// TestPlainRequestMatchesDecodeMessage: whatever decodeFrame builds
// itself equals what the SDK's decoder reads from the same frame, and the
// ordinary frames of a session take that path.
func TestPlainRequestMatchesDecodeMessage(t *testing.T) {
	plain := 0
	for _, frame := range plainFrames {
		plain += checkPlainRequest(t, []byte(strings.TrimSpace(frame)))
	}
	assert.GreaterOrEqual(t, plain, 8, "the ordinary frames take the plain path")
	for _, frame := range plainFrames[:8] {
		_, ok := plainRequest(walkFrame([]byte(strings.TrimSpace(frame))))
		assert.True(t, ok, "plain path for %s", frame)
	}
}

// TestPlainRequestCopiesParams: the message must not change when the
// guard reuses its read buffer for the next line.
func TestPlainRequestCopiesParams(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	req, ok := plainRequest(walkFrame(frame))
	require.True(t, ok)
	for i := range frame {
		frame[i] = ' '
	}
	assert.JSONEq(t, `{"name":"x"}`, string(req.Params))
}

// checkPlainRequest compares plainRequest with DecodeMessage on one frame
// and reports 1 when the plain path was taken.
func checkPlainRequest(t *testing.T, frame []byte) int {
	t.Helper()
	if !json.Valid(frame) || len(frame) == 0 || frame[0] != '{' {
		return 0
	}
	w := walkFrame(frame)
	if w.dup {
		return 0 // classify refuses these before decoding
	}
	req, ok := plainRequest(w)
	if !ok {
		return 0
	}
	want, err := jsonrpc.DecodeMessage(bytes.Clone(frame))
	require.NoError(t, err, "the plain path took a frame the SDK refuses: %s", frame)
	wr, isReq := want.(*jsonrpc.Request)
	require.True(t, isReq, "the SDK reads %s as a response", frame)
	assert.Equal(t, wr.ID, req.ID, "id of %s", frame)
	assert.Equal(t, wr.Method, req.Method, "method of %s", frame)
	if wr.Params == nil {
		assert.Nil(t, req.Params, "params of %s", frame)
	} else {
		assert.JSONEq(t, string(wr.Params), string(req.Params), "params of %s", frame)
	}
	return 1
}

// FuzzPlainRequest: for any frame, the plain path either declines or
// builds exactly the SDK decoder's message.
func FuzzPlainRequest(f *testing.F) {
	for _, s := range plainFrames {
		f.Add(s)
	}
	for _, s := range FramesSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		checkPlainRequest(t, bytes.TrimSpace([]byte(frame)))
	})
}

// TestPlainRequestDepth: params nested deeper than plainDepth go to the
// SDK's decoder, which refuses 1000 levels; strings do not count.
func TestPlainRequestDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	frame := func(a string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + a + `}}`)
	}
	_, ok := plainRequest(walkFrame(frame(nest(plainDepth - 1))))
	assert.True(t, ok)
	_, ok = plainRequest(walkFrame(frame(nest(plainDepth))))
	assert.False(t, ok)
	_, ok = plainRequest(walkFrame(frame(`"` + strings.Repeat(`[{\"`, 2000) + `"`)))
	assert.True(t, ok, "brackets inside a string are not nesting")
	_, err := decodeFrame(frame(nest(1000)), walkFrame(frame(nest(1000))))
	assert.Error(t, err, "the SDK's own refusal")
}
