package frame

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// textSplicer takes a large tool answer's text out of the SDK's hands and
// writes it on the wire itself, escaped once.
//
// The SDK marshals a tool result's text three times over: TextContent's
// MarshalJSON escapes it, CallToolResult's MarshalJSON runs encoding/json's
// compactor over that, and the response's marshal compacts it once more
// (appendMessage, encode.go, already skips the fourth pass, EncodeMessage's).
// For 1000 rows of CSV (~60 KB of JSON string) the two compactions were a
// third of the server's CPU per call (BenchmarkServeRows1000).
//
// Through the SDK's public extension points only: a receiving middleware
// (middleware) swaps the text of a large tools/call answer for a
// placeholder and keeps the text; the transport (appendMessage) finds the
// placeholder where the SDK always writes the first text block (first in
// the result, or right after its _meta) and writes the text escaped by
// encoding/json,
// exactly the bytes the SDK would have written (TestTextSplicerMatchesSDK).
//
// A placeholder can never be confused with agent data: it holds a random
// 128-bit secret the agent never sees (a placeholder is never written), it is
// looked for only at that fixed position, and only one that is pending is
// replaced; a text that merely looks like one is written as it is. A
// result that holds a pending placeholder anywhere else (a future SDK that
// orders the fields differently) is marshalled again whole, as the SDK
// would, with the text put back.
type textSplicer struct {
	secret string // "mcp-sqlite-memory-text-<32 hex digits>-"

	mu      sync.Mutex
	next    uint64
	pending map[string]pendingText
}

// pendingText is a text taken out of a result, the block that held it and
// the result.
type pendingText struct {
	res   *mcp.CallToolResult
	block *mcp.TextContent
	text  string
}

// spliceMinBytes is the smallest text the splicer takes: below it the
// SDK's passes cost less than the bookkeeping.
const spliceMinBytes = 4 << 10

// How the SDK starts a tool result whose first content block is text:
// spliceResultPrefix when the result has no _meta; with _meta (the SDK
// adds serverInfo there for clients of protocol 2026-07-28), spliceMetaKey,
// the _meta object, then spliceContentKey.
const (
	spliceResultPrefix = `{"content":[{"type":"text","text":"`
	spliceMetaKey      = `{"_meta":`
	spliceContentKey   = `,"content":[{"type":"text","text":"`
)

type splicerKey struct{}

func newTextSplicer() *textSplicer {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	secret := "mcp-sqlite-memory-text-" + hex.EncodeToString(b[:]) + "-"
	return &textSplicer{secret: secret, pending: map[string]pendingText{}}
}

// withSplicer is ctx carrying sp for the middleware: only the session whose
// transport splices (stdio) gets placeholders.
func withSplicer(ctx context.Context, sp *textSplicer) context.Context {
	return context.WithValue(ctx, splicerKey{}, sp)
}

// spliceMiddleware swaps the text of a large tools/call answer for a
// placeholder when the call came over a transport that splices (its
// context carries the splicer); any other session is left alone.
func spliceMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/call" {
			return res, err
		}
		sp, _ := ctx.Value(splicerKey{}).(*textSplicer)
		r, ok := res.(*mcp.CallToolResult)
		if sp == nil || !ok || r == nil || r.Meta != nil || len(r.Content) == 0 {
			return res, err
		}
		tc, ok := r.Content[0].(*mcp.TextContent)
		if !ok || tc.Meta != nil || tc.Annotations != nil || len(tc.Text) < spliceMinBytes {
			return res, err
		}
		sp.mu.Lock()
		sp.next++
		ph := sp.secret + strconv.FormatUint(sp.next, 10)
		sp.pending[ph] = pendingText{res: r, block: tc, text: tc.Text}
		sp.mu.Unlock()
		tc.Text = ph
		return res, err
	}
}

// appendMessage is appendMessage (encode.go) with a pending text written
// in place of its placeholder. A nil splicer only calls appendMessage.
func (sp *textSplicer) appendMessage(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	r, ok := msg.(*jsonrpc.Response)
	if sp == nil || !ok || r.Error != nil || len(r.Result) == 0 {
		return appendMessage(dst, msg)
	}
	at, ph, p, ok := sp.take(r.Result)
	if !ok {
		return appendMessage(dst, msg)
	}
	var result []byte
	if at >= 0 {
		// The placeholder is where the SDK writes the first text block:
		// r.Result[at:] starts with it and its closing quote.
		result = make([]byte, 0, len(r.Result)+len(p.text)+len(p.text)/8)
		result = append(result, r.Result[:at-1]...) // up to the opening quote
		var err error
		if result, err = appendJSONString(result, p.text); err != nil {
			return dst, err
		}
		result = append(result, r.Result[at+len(ph)+1:]...)
	} else {
		// Elsewhere: marshal the result again as the SDK does, text put back.
		p.block.Text = p.text
		var err error
		if result, err = sdkMarshal(p.res); err != nil {
			return dst, err
		}
	}
	resp := *r
	resp.Result = result
	return appendMessage(dst, &resp)
}

// take removes and returns the pending text whose placeholder result
// holds: at is the placeholder's offset when it is the first text block's
// string, where the SDK writes the text, -1 when it sits elsewhere; ok is
// false when the result holds no pending placeholder.
func (sp *textSplicer) take(result []byte) (at int, ph string, p pendingText, ok bool) {
	if at = firstTextAt(result); at >= 0 && bytes.HasPrefix(result[at:], []byte(sp.secret)) {
		if end := bytes.IndexByte(result[at:], '"'); end > 0 {
			ph = string(result[at : at+end])
			sp.mu.Lock()
			p, ok = sp.pending[ph]
			delete(sp.pending, ph)
			sp.mu.Unlock()
			if ok {
				return at, ph, p, true
			}
		}
	}
	// Not there: look for a pending placeholder anywhere. The secret is
	// never written, so it is found only in a result that holds one.
	i := bytes.Index(result, []byte(sp.secret))
	if i < 0 {
		return -1, "", pendingText{}, false
	}
	end := bytes.IndexByte(result[i:], '"')
	if end < 0 {
		return -1, "", pendingText{}, false
	}
	key := string(result[i : i+end])
	sp.mu.Lock()
	p, ok = sp.pending[key]
	delete(sp.pending, key)
	sp.mu.Unlock()
	return -1, "", p, ok
}

// firstTextAt is the offset of the first content block's text string in
// a tool result as the SDK marshals it (just past its opening quote), or
// -1 when the result does not start that way. A _meta object before it is
// skipped by a JSON decoder, so no string inside it can pass for the text.
func firstTextAt(result []byte) int {
	if bytes.HasPrefix(result, []byte(spliceResultPrefix)) {
		return len(spliceResultPrefix)
	}
	if !bytes.HasPrefix(result, []byte(spliceMetaKey)) {
		return -1
	}
	dec := json.NewDecoder(bytes.NewReader(result[len(spliceMetaKey):]))
	var meta json.RawMessage
	if err := dec.Decode(&meta); err != nil || len(meta) == 0 || meta[0] != '{' {
		return -1
	}
	off := len(spliceMetaKey) + int(dec.InputOffset())
	if !bytes.HasPrefix(result[off:], []byte(spliceContentKey)) {
		return -1
	}
	return off + len(spliceContentKey)
}

// drop forgets every pending text (the session ended: their answers will
// never be written).
func (sp *textSplicer) drop() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	clear(sp.pending)
	sp.mu.Unlock()
}

// appendJSONString appends s as encoding/json writes a string field
// inside a value marshalled by json.Marshal: quoted, HTML characters, U+2028
// and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(dst []byte, s string) ([]byte, error) {
	w := appendWriter{dst}
	enc := json.NewEncoder(&w)
	if err := enc.Encode(s); err != nil {
		return dst, err
	}
	return w.b[:len(w.b)-1], nil // Encode ends with a newline
}

// appendWriter is an io.Writer appending to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// sdkMarshal marshals a result as the SDK's jsonrpc2 does (an encoder
// without HTML escaping, the trailing newline cut).
func sdkMarshal(v any) ([]byte, error) {
	w := appendWriter{}
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(w.b, "\n"), nil
}
