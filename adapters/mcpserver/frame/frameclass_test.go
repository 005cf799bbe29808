package frame

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClassifyFollowsTheFrameRules pins each row of the frame table in
// docs/decisions.md#frames.
func TestClassifyFollowsTheFrameRules(t *testing.T) {
	t.Parallel()
	known := func(name string) bool { return name == "read_query" }
	const (
		pass    = "pass"
		silent  = "silent"
		rpcErr  = "error"
		toolErr = "tool error"
	)
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	for _, tc := range []struct {
		name, frame string
		want        string // pass, silent, error or tool error
		id          string // the id handed on or echoed ("" for null)
		audit       bool   // refused as a tool call: audited
		reason      string // part of the reason
	}{
		{"request with an integer id", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, pass, "7", false, ""},
		{"negative integer id", `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, pass, "-7", false, ""},
		{"largest safe integer", `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, pass, "9007199254740992", false, ""},
		{"string id", `{"jsonrpc":"2.0","id":"a-1 é<&>","method":"ping"}`, pass, `"a-1 é<&>"`, false, ""},
		{"string id with needed escapes", `{"jsonrpc":"2.0","id":"q\"\\\n","method":"ping"}`, pass, `"q\"\\\n"`, false, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, pass, "", false, ""},
		{"response to the server", `{"jsonrpc":"2.0","id":3,"result":{}}`, pass, "", false, ""},
		{"tool call", call("1", `{"name":"read_query","arguments":{"query":"SELECT 1"}}`), pass, "1", false, ""},

		{"not JSON", `{"jsonrpc":`, rpcErr, "", false, "parse error"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, rpcErr, "", false, "batches are not supported"},
		{"empty batch", `[]`, rpcErr, "", false, "batches are not supported"},
		{"scalar", `42`, rpcErr, "", false, "JSON object"},
		{"fractional id", `{"jsonrpc":"2.0","id":4.5,"method":"ping"}`, rpcErr, "4.5", false, "not an integer"},
		{"integer spelled as a fraction", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, rpcErr, "1.0", false, "not an integer"},
		{"exponent id", `{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, rpcErr, "1e2", false, "not an integer"},
		{"minus zero", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, rpcErr, "-0", false, "not an integer"},
		{"huge integer id", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, rpcErr, "9007199254740993", false, "2^53"},
		{"id longer than the cap", `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 200) + `","method":"ping"}`, rpcErr, "", false, "over the server's limit"},
		{"escaped string id", `{"jsonrpc":"2.0","id":"\u0041","method":"ping"}`, rpcErr, `"\u0041"`, false, "escapes"},
		{"invalid UTF-8 id is not echoed", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", rpcErr, "", false, "not a valid string"},
		{"lone surrogate id", `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, rpcErr, `"\ud800"`, false, "escapes"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, rpcErr, "", false, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, rpcErr, "", false, "invalid ID type"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, rpcErr, "", false, "invalid ID type"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, rpcErr, "", false, "invalid ID type"},
		{"wrong version", `{"jsonrpc":"1.0","id":2,"method":"ping"}`, rpcErr, "2", false, "not a JSON-RPC 2.0 message"},
		{"no method, no result", `{"jsonrpc":"2.0","id":2}`, rpcErr, "2", false, `needs a "method"`},
		{"method not a string", `{"jsonrpc":"2.0","id":2,"method":5}`, rpcErr, "2", false, `"method" must be`},
		{"duplicate key deep inside", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":[{"b":1,"b":2}]}}`, rpcErr, "2", false, `"b" appears twice`},
		{"duplicate id", `{"jsonrpc":"2.0","id":2,"id":3,"method":"ping"}`, rpcErr, "", false, `"id" appears twice`},
		{"duplicate id after another duplicate", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":2,"id":3,"method":"ping"}`, rpcErr, "", false, "appears twice"},

		{"duplicate tool name", call("5", `{"name":"read_query","name":"write_query"}`), toolErr, "5", true, `"name" appears twice`},
		{"duplicate argument, escaped", call("6", `{"name":"read_query","arguments":{"query":"SELECT 1","\u0071uery":"SELECT 2"}}`), toolErr, "6", true, `"query" appears twice`},
		{"params not an object", call("8", `[1]`), rpcErr, "8", true, `"params" as an object`},
		{"no params", `{"jsonrpc":"2.0","id":8,"method":"tools/call"}`, rpcErr, "8", true, `"params" as an object`},
		{"tool name not a string", call("9", `{"name":5}`), rpcErr, "9", true, `"params.name" as a string`},
		{"unknown tool", call("10", `{"name":"write_query"}`), rpcErr, "10", true, `unknown tool "write_query"`},
		{"_meta not an object", call("11", `{"name":"read_query","_meta":5}`), rpcErr, "11", true, `"params._meta"`},
		{"tool call with a fractional id", call("4.5", `{"name":"read_query"}`), toolErr, "4.5", true, "not an integer"},
		{"tool call with a null id", call("null", `{"name":"read_query"}`), rpcErr, "", true, "null"},

		{"tool call without an id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_query"}}`, silent, "", true, "without an id"},
		{"notification of the wrong version", `{"jsonrpc":"1.0","method":"x"}`, silent, "", false, ""},
		{"notification with a duplicate key", `{"jsonrpc":"2.0","method":"x","params":{"a":1,"a":2}}`, silent, "", false, ""},
		{"response with a duplicate key", `{"jsonrpc":"2.0","id":3,"result":{"a":1,"a":2}}`, silent, "", false, ""},
		{"malformed response", `{"jsonrpc":"2.0","id":null,"result":{}}`, silent, "", false, ""},
		{"response without an id", `{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`, silent, "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := classify([]byte(tc.frame), known)
			switch tc.want {
			case pass:
				assert.True(t, got.pass, "%+v", got.r)
				assert.Equal(t, tc.id, got.id)
				return
			case silent:
				assert.False(t, got.pass)
				assert.True(t, got.r.silent, "%+v", got.r)
				assert.Equal(t, tc.audit, got.r.call, "audited")
				assert.Contains(t, got.r.reason, tc.reason)
				return
			}
			if !assert.False(t, got.pass) {
				return
			}
			assert.False(t, got.r.silent)
			assert.Equal(t, tc.want == toolErr, got.r.toolError)
			if tc.audit && tc.want == rpcErr && !strings.Contains(tc.reason, "null") {
				assert.Equal(t, -32602, got.r.code, "as the SDK answers a call it cannot run")
			}
			assert.Equal(t, tc.audit, got.r.call)
			assert.Equal(t, tc.id, string(got.r.fields.id))
			assert.Contains(t, got.r.reason, tc.reason)
		})
	}
}

func TestDuplicateKeyComparesDecodedNames(t *testing.T) {
	t.Parallel()
	for frame, want := range map[string]string{
		`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`: "",
		`{"a":1,"\u0061":2}`:                        "a",
		`{"x":{},"y":{"k":[],"k":[]}}`:              "k",
		`[{"a":1},{"a":1,"a":1}]`:                   "a",
		`{"":1,"":2}`:                               "",
	} {
		key, dup := duplicateKey([]byte(frame))
		assert.Equal(t, want, key, frame)
		assert.Equal(t, want != "" || strings.Contains(frame, `"":1,"":2`), dup, frame)
	}
}

// BenchmarkClassifySmallCall is the guard's cost on a typical tool call.
func BenchmarkClassifySmallCall(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT id, title FROM notes WHERE id = 7","limit":10}}}`)
	known := func(string) bool { return true }
	b.ReportAllocs()
	for b.Loop() {
		if !classify(frame, known).pass {
			b.Fatal("refused")
		}
	}
}

// BenchmarkClassifyLargeCall is the guard's cost on a 512 KiB append_event.
func BenchmarkClassifyLargeCall(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"append_event","arguments":{"content":"` + strings.Repeat("x", 512<<10) + `"}}}`)
	known := func(string) bool { return true }
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if !classify(frame, known).pass {
			b.Fatal("refused")
		}
	}
}

// tokenDuplicateKey is the slow, obvious reference for walkFrame's
// duplicate check: encoding/json's tokenizer with a key set per object.
func tokenDuplicateKey(frame []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(frame))
	type level struct {
		keys map[string]bool // nil for an array
		key  bool            // the next token is a key
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil && stack[n-1].key {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return true
				}
				stack[n-1].keys[k], stack[n-1].key = true, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].key = true
		}
	}
}

// FuzzWalkFrame checks the one-pass walker against encoding/json: the same
// verdict on duplicate keys, and without duplicates the same top-level and
// params members.
func FuzzWalkFrame(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, `{"a":1,"\u0061":2}`, `{"x":"\"}\\","y":[1,{"k":"]"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"q":"a,b:c"}}}`,
		`{ "id" : "x" , "params" : { "name" : 5 } }`, `{"params":[{"name":1}],"name":2}`, `[{"a":1,"a":2}]`, `"s"`, `{}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		frame := []byte(s)
		if !json.Valid(frame) {
			t.Skip()
		}
		w := walkFrame(frame)
		require.Equal(t, tokenDuplicateKey(frame), w.dup, "%s", s)
		if w.dup || len(bytes.TrimSpace(frame)) == 0 || bytes.TrimSpace(frame)[0] != '{' {
			return
		}
		var top map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(frame, &top))
		require.Equal(t, len(top), len(w.top), "%s", s)
		for k, v := range top {
			require.Equal(t, string(v), string(w.top[k]), "%s: member %q", s, k)
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(top["params"], &params) == nil && params != nil {
			require.Equal(t, len(params), len(w.params), "%s", s)
			for k, v := range params {
				require.Equal(t, string(v), string(w.params[k]), "%s: params member %q", s, k)
			}
		} else {
			require.Nil(t, w.params, "%s", s)
		}
	})
}

// duplicateKey reports the first key that appears twice in one object, at
// any depth, of a valid JSON text.
func duplicateKey(frame []byte) (string, bool) {
	w := walkFrame(frame)
	return w.dupKey, w.dup
}
