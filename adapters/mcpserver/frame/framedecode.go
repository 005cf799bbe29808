package frame

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeFrame returns the message an accepted frame holds, as the SDK's
// jsonrpc.DecodeMessage reads it. DecodeMessage builds a JSON decoder with
// a 32 KiB buffer for every call (SDK v1.8.0), about 64 KiB per message
// and a tenth of a small call's CPU; a plain request, which is nearly
// every frame a client sends, is built instead from the walk classify has
// already made (plainRequest). Everything else goes to DecodeMessage.
func decodeFrame(frame []byte, w frameWalk) (jsonrpc.Message, error) {
	if msg, ok := plainRequest(w); ok {
		return msg, nil
	}
	return jsonrpc.DecodeMessage(frame)
}

// plainKeys are the only top-level keys a plain request may have. The SDK
// matches keys without regard to letter case, so any other key (say
// "Method") leaves the frame to its decoder.
var plainKeys = map[string]bool{"jsonrpc": true, "id": true, "method": true, "params": true}

// plainRequest builds the request of a frame whose meaning no decoder can
// read differently, and reports false for any other frame: "jsonrpc" is
// exactly "2.0"; the id is present and one the SDK answers unchanged
// (badID: an integer within ±2^53, which float64 holds exactly, or a
// string spelled as encoding/json spells it), here without escapes; the
// method a string of valid UTF-8 without escapes; params absent or an
// object of valid UTF-8 nested at most plainDepth deep (the SDK's decoder
// refuses more than 1000 levels); no other key. The result then equals DecodeMessage's
// (TestPlainRequestMatchesDecodeMessage, FuzzPlainRequest). Params is
// copied: the walk points into the guard's read buffer.
func plainRequest(w frameWalk) (*jsonrpc.Request, bool) {
	for k := range w.top {
		if !plainKeys[k] {
			return nil, false
		}
	}
	if string(w.top["jsonrpc"]) != `"2.0"` {
		return nil, false
	}
	rawID, ok := w.top["id"]
	if !ok || badID(rawID) != "" || bytes.IndexByte(rawID, '\\') >= 0 {
		return nil, false
	}
	var v any
	if rawID[0] == '"' {
		v = string(rawID[1 : len(rawID)-1])
	} else {
		n, err := strconv.ParseInt(string(rawID), 10, 64)
		if err != nil {
			return nil, false
		}
		v = float64(n) // as the SDK reads it; exact within ±2^53
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return nil, false
	}
	m := w.top["method"]
	if len(m) < 2 || m[0] != '"' || bytes.IndexByte(m, '\\') >= 0 || !utf8.Valid(m) {
		return nil, false
	}
	req := &jsonrpc.Request{ID: id, Method: string(m[1 : len(m)-1])}
	if p, ok := w.top["params"]; ok {
		if len(p) == 0 || p[0] != '{' || !shallow(p, plainDepth) || !utf8.Valid(p) {
			return nil, false
		}
		req.Params = append(json.RawMessage(nil), p...)
	}
	return req, true
}

// plainDepth bounds the nesting of a plain request's params, well below
// the 1000 levels the SDK's decoder accepts; deeper frames go to it.
const plainDepth = 64

// shallow reports whether the JSON value v nests at most max levels of
// objects and arrays; strings are skipped whole.
func shallow(v []byte, max int) bool {
	depth := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			i = stringEnd(v, i) - 1
		case '{', '[':
			if depth++; depth > max {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}
