package frame

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxIDBytes bounds a request id, in bytes of its JSON. Longer ids are
// refused: a frame too large to read whole is scanned in constant memory,
// and keeps only this much of its id.
const maxIDBytes = maxCapture

// maxSafeID is the largest integer id the SDK answers unchanged: it reads
// ids as float64 and writes them back as int64.
const maxSafeID = 1 << 53

// frameRule is the guard's verdict on one frame, following the table in
// docs/decisions.md#frames:
//
//   - pass: hand the frame to the SDK; id is the request's id (raw JSON,
//     empty for notifications and responses), which the SDK answers
//     byte for byte; msg is the frame as the SDK's own decoder read it;
//   - otherwise refuse it with r.
type frameRule struct {
	pass bool
	id   string
	msg  jsonrpc.Message
	r    refusal
}

// classify decides what one trimmed, non-empty inbound line gets. known
// reports whether a tool name is offered by this server.
func classify(frame []byte, known func(string) bool) frameRule {
	if !json.Valid(frame) {
		return refuse(refusal{code: jsonrpc.CodeParseError, reason: "parse error: the line is not JSON; send one JSON-RPC message per line"})
	}
	switch frame[0] {
	case '{':
	case '[':
		return refuse(refusal{code: jsonrpc.CodeInvalidRequest, reason: "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send each message on its own line"})
	default:
		return refuse(refusal{code: jsonrpc.CodeInvalidRequest, reason: "invalid request: a JSON-RPC message is a JSON object"})
	}
	w := walkFrame(frame)
	top := w.top
	f := envelope(top, w.params)
	if w.dup {
		// Which value wins is the reader's choice: a proxy or an
		// approval screen may show the first "name" or "query" while
		// the SDK runs the last. Refuse rather than guess. A field
		// given twice is no field given: the answer goes to id null,
		// and a tool named twice is audited as tools/call.
		if w.topN["id"] > 1 {
			f.id = nil
		}
		if w.topN["method"] > 1 {
			f.method, f.tool = "", ""
		}
		if w.paramsN["name"] > 1 {
			f.tool = ""
		}
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the key %s appears twice in one object; send each key once", quoteCut(w.dupKey))))
	}
	if _, ok := top["method"]; !ok {
		if _, isResult := top["result"]; isResult || top["error"] != nil {
			// A response to one of the server's requests: never
			// answered, even when malformed.
			msg, err := jsonrpc.DecodeMessage(frame)
			if err != nil || !f.hasID || f.id == nil {
				return refuse(refusal{silent: true, reason: "a malformed response was dropped"})
			}
			return frameRule{pass: true, msg: msg}
		}
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, `invalid request: a request needs a "method"`))
	}
	if f.method == "" {
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, `invalid request: "method" must be a non-empty string`))
	}
	msg, err := decodeFrame(frame, w)
	if err != nil {
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message ("+err.Error()+")"))
	}
	if !f.hasID {
		if f.method == "tools/call" {
			// The SDK ignores a call without an id; say so in the
			// audit log, the only place a notification can be answered.
			return refuse(f.refusal(jsonrpc.CodeInvalidRequest, "invalid request: tools/call was sent without an id, as a notification, and was not run; send it with an id"))
		}
		return frameRule{pass: true, msg: msg} // a notification
	}
	if why := badID(top["id"]); why != "" {
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, "invalid request: "+why))
	}
	if f.method == "tools/call" {
		if why := badCall(w.params, known); why != "" {
			// As the SDK and MCP answer them (unknown tool, malformed
			// params): a protocol error, -32602; audited besides.
			r := f.refusal(jsonrpc.CodeInvalidParams, why)
			r.toolError = false
			return refuse(r)
		}
	}
	return frameRule{pass: true, id: string(f.id), msg: msg}
}

func refuse(r refusal) frameRule { return frameRule{r: r} }

// envelope reads the fields of a message needed to answer it: its id when
// it can be echoed (a JSON string or number), its method, and the tool a
// tools/call names; params is the params object (nil when it is not one).
func envelope(top, params map[string]json.RawMessage) frameFields {
	var f frameFields
	if raw, ok := top["id"]; ok {
		f.hasID = true
		if echoable(raw) {
			f.id = append(json.RawMessage(nil), raw...) // raw points into the read buffer
		}
	}
	_ = unmarshalString(top["method"], &f.method)
	if _, ok := top["method"]; !ok {
		_, isResult := top["result"]
		_, isError := top["error"]
		f.response = isResult || isError
	}
	if f.method == "tools/call" && params != nil {
		_ = unmarshalString(params["name"], &f.tool)
	}
	return f
}

// echoable reports whether an id can be written back as it came: a JSON
// string or number of at most maxIDBytes, in valid UTF-8 (stdout carries
// only valid JSON text). null, objects, arrays and booleans cannot be ids
// and are answered with id null.
func echoable(raw json.RawMessage) bool {
	if len(raw) == 0 || len(raw) > maxIDBytes || !utf8.Valid(raw) {
		return false
	}
	c := raw[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// badID says why a request's id is refused, or "" when the SDK will
// answer it under the very same bytes. MCP allows strings and integers
// (never null); the SDK reads numbers as float64 and strings as Go
// strings and writes them back in its own spelling, so only ids it
// writes back unchanged are handed on: integers within ±2^53 without a
// fraction or exponent, and strings spelled as encoding/json spells them.
func badID(raw json.RawMessage) string {
	const fix = "; use a string or an integer id"
	switch {
	case string(raw) == "null":
		return "the id is null; MCP requests need a string or integer id (a message without an id is a notification)"
	case len(raw) > maxIDBytes:
		return fmt.Sprintf("the id is %d bytes, over the server's limit of %d bytes; use a shorter id", len(raw), maxIDBytes)
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil || !utf8.Valid(raw) {
			return "the id is not a valid string" + fix
		}
		if canon, err := canonicalString(s); err != nil || !bytes.Equal(canon, raw) {
			return "the id string is spelled with escapes the answer would not repeat (write characters as themselves; escape only quotes, backslashes and control characters)"
		}
		return ""
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		if bytes.ContainsAny(raw, ".eE") || string(raw) == "-0" {
			return "the id " + string(raw) + " is not an integer" + fix
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxSafeID || n < -maxSafeID {
			return "the id " + string(raw) + " is beyond ±2^53 and would come back changed" + fix + " within ±9007199254740992"
		}
		return ""
	default:
		return "the id must be a string or an integer, not " + string(raw[:1]) + "..."
	}
}

// canonicalString is how the SDK writes a string id back.
func canonicalString(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// badCall says why a tools/call request would be refused by the SDK
// before any tool runs (and so before any audit), or "". It answers
// those with -32602, and the guard answers them the same way. params must be
// an object naming, as a string, a tool this server offers, with _meta
// an object if present.
func badCall(p map[string]json.RawMessage, known func(string) bool) string {
	if p == nil {
		return `invalid params: tools/call needs "params" as an object: {"name": "<tool>", "arguments": {...}}`
	}
	var name string
	if unmarshalString(p["name"], &name) != nil || p["name"] == nil || string(p["name"]) == "null" {
		return `invalid params: tools/call needs "params.name" as a string naming the tool; tools/list shows them`
	}
	if meta, ok := p["_meta"]; ok && string(meta) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(meta, &m) != nil {
			return `invalid params: "params._meta" must be an object`
		}
	}
	if known != nil && !known(name) {
		return fmt.Sprintf("unknown tool %s; tools/list shows the tools this server offers", quoteCut(name))
	}
	return ""
}

// quoteCut quotes s for a message, cut to maxCapture bytes.
func quoteCut(s string) string {
	if len(s) > maxCapture {
		s = s[:maxCapture] + "..."
	}
	return strconv.Quote(s)
}

// frameWalk is what one pass over a valid JSON object frame found: the
// members of the top level and of its "params" object (raw values, the
// last of a repeated key), how often each key appears there, and the
// first key given twice in any object at any depth.
type frameWalk struct {
	top, params   map[string]json.RawMessage
	topN, paramsN map[string]int
	dup           bool
	dupKey        string
}

// walkFrame walks a valid JSON text once. Keys are compared as decoded,
// so "name" and "\u006eame" are the same key. String contents are
// skipped with IndexByte, so a large argument costs little.
func walkFrame(frame []byte) frameWalk {
	w := frameWalk{top: map[string]json.RawMessage{}, topN: map[string]int{}}
	type level struct {
		keys  map[string]struct{} // nil for an array
		into  map[string]json.RawMessage
		count map[string]int
		key   string
		start int // where the current member's value starts; -1 for none
	}
	var stack []level
	wantKey := false
	// member records the value that ends at end for the innermost level.
	member := func(end int) {
		l := &stack[len(stack)-1]
		if l.into != nil && l.start >= 0 {
			l.into[l.key] = bytes.TrimSpace(frame[l.start:end])
		}
		l.start = -1
	}
	for i := 0; i < len(frame); {
		switch frame[i] {
		case '"':
			end := stringEnd(frame, i)
			if wantKey && len(stack) > 0 {
				l := &stack[len(stack)-1]
				raw := frame[i:end]
				var k string
				if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
					_ = json.Unmarshal(raw, &k)
				} else {
					k = string(raw[1 : len(raw)-1])
				}
				if _, seen := l.keys[k]; seen && !w.dup {
					w.dup, w.dupKey = true, k
				}
				l.keys[k] = struct{}{}
				l.key = k
				if l.count != nil {
					l.count[k]++
				}
				wantKey = false
			}
			i = end
			continue
		case '{':
			l := level{keys: map[string]struct{}{}, start: -1}
			switch {
			case len(stack) == 0:
				l.into, l.count = w.top, w.topN
			case len(stack) == 1 && stack[0].key == "params" && w.params == nil:
				w.params, w.paramsN = map[string]json.RawMessage{}, map[string]int{}
				l.into, l.count = w.params, w.paramsN
			}
			stack = append(stack, l)
			wantKey = true
		case '[':
			stack = append(stack, level{start: -1})
			wantKey = false
		case '}', ']':
			if len(stack) > 0 {
				if stack[len(stack)-1].keys != nil {
					member(i)
				}
				stack = stack[:len(stack)-1]
			}
			wantKey = false
		case ',':
			wantKey = len(stack) > 0 && stack[len(stack)-1].keys != nil
			if wantKey {
				member(i)
			}
		case ':':
			stack[len(stack)-1].start = i + 1
			wantKey = false
		}
		i++
	}
	return w
}

// stringEnd returns the index just after the string that starts with the
// quote at frame[start].
func stringEnd(frame []byte, start int) int {
	for j := start + 1; ; {
		k := bytes.IndexByte(frame[j:], '"')
		if k < 0 {
			return len(frame)
		}
		q := j + k
		slashes := 0
		for p := q - 1; p > start && frame[p] == '\\'; p-- {
			slashes++
		}
		if slashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}
