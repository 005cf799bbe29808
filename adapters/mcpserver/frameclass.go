package mcpserver

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
// ARCHITECTURE.md ("What each inbound frame gets"):
//
//   - pass: hand the frame to the SDK; id is the request's id (raw JSON,
//     empty for notifications and responses), which the SDK answers
//     byte for byte;
//   - otherwise refuse it with r.
type frameRule struct {
	pass bool
	id   string
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
	var top map[string]json.RawMessage
	if err := json.Unmarshal(frame, &top); err != nil {
		return refuse(refusal{code: jsonrpc.CodeInvalidRequest, reason: "invalid request: " + err.Error()})
	}
	f := envelope(top)
	if key, dup := duplicateKey(frame); dup {
		// Which value wins is the reader's choice: a proxy or an
		// approval screen may show the first "name" or "query" while
		// the SDK runs the last. Refuse rather than guess.
		// A field given twice is no field given: the answer goes to
		// id null, and a tool named twice is audited as tools/call.
		if keyCount(frame, "id") > 1 {
			f.id = nil
		}
		if keyCount(frame, "method") > 1 {
			f.method, f.tool = "", ""
		}
		if keyCount(top["params"], "name") > 1 {
			f.tool = ""
		}
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the key %s appears twice in one object; send each key once", quoteCut(key))))
	}
	if _, ok := top["method"]; !ok {
		if _, isResult := top["result"]; isResult || top["error"] != nil {
			// A response to one of the server's requests: never
			// answered, even when malformed.
			if _, err := jsonrpc.DecodeMessage(frame); err != nil || !f.hasID || f.id == nil {
				return refuse(refusal{silent: true, reason: "a malformed response was dropped"})
			}
			return frameRule{pass: true}
		}
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, `invalid request: a request needs a "method"`))
	}
	if f.method == "" {
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, `invalid request: "method" must be a non-empty string`))
	}
	if _, err := jsonrpc.DecodeMessage(frame); err != nil {
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message ("+err.Error()+")"))
	}
	if !f.hasID {
		return frameRule{pass: true} // a notification
	}
	if why := badID(top["id"]); why != "" {
		return refuse(f.refusal(jsonrpc.CodeInvalidRequest, "invalid request: "+why))
	}
	if f.method == "tools/call" {
		if why := badCall(top["params"], known); why != "" {
			// As the SDK and MCP answer them (unknown tool, malformed
			// params): a protocol error, -32602; audited besides.
			r := f.refusal(jsonrpc.CodeInvalidParams, why)
			r.toolError = false
			return refuse(r)
		}
	}
	return frameRule{pass: true, id: string(f.id)}
}

func refuse(r refusal) frameRule { return frameRule{r: r} }

// envelope reads the fields of a message needed to answer it: its id when
// it can be echoed (a JSON string or number), its method, and the tool a
// tools/call names.
func envelope(top map[string]json.RawMessage) frameFields {
	var f frameFields
	if raw, ok := top["id"]; ok {
		f.hasID = true
		if echoable(raw) {
			f.id = raw
		}
	}
	_ = json.Unmarshal(top["method"], &f.method)
	if f.method == "tools/call" {
		var p struct {
			Name json.RawMessage `json:"name"`
		}
		if json.Unmarshal(top["params"], &p) == nil {
			_ = json.Unmarshal(p.Name, &f.tool)
		}
	}
	return f
}

// echoable reports whether an id can be written back as it came: a JSON
// string or number of at most maxIDBytes. null, objects, arrays and
// booleans cannot be ids and are answered with id null.
func echoable(raw json.RawMessage) bool {
	if len(raw) == 0 || len(raw) > maxIDBytes {
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
		if json.Unmarshal(raw, &s) != nil || !utf8.ValidString(s) {
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
func badCall(raw json.RawMessage, known func(string) bool) string {
	var p map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &p) != nil || p == nil {
		return `invalid params: tools/call needs "params" as an object: {"name": "<tool>", "arguments": {...}}`
	}
	var name string
	if json.Unmarshal(p["name"], &name) != nil || p["name"] == nil || string(p["name"]) == "null" {
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

// duplicateKey reports the first key that appears twice in one object,
// at any depth. Keys are compared as decoded, so "name" and "\u006eame"
// are the same key.
func duplicateKey(frame []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(frame))
	type level struct {
		object bool
		keys   map[string]struct{}
		key    bool // the next token of this object is a key
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false // the end, or input json.Valid passed: nothing to report
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
			if k, ok := tok.(string); ok {
				if _, seen := stack[n-1].keys[k]; seen {
					return k, true
				}
				stack[n-1].keys[k] = struct{}{}
				stack[n-1].key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{object: true, keys: map[string]struct{}{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: the enclosing object expects a key next.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
}

// keyCount counts the members named key in the JSON object obj (0 when obj
// is not an object), comparing decoded names.
func keyCount(obj []byte, key string) int {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		if tok == key {
			n++
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return n
		}
	}
	return n
}
