package frame

import "strings"

// MaxIDBytes is the longest id the guard echoes, for the external tests.
const MaxIDBytes = maxIDBytes

// FramesSeeds hold one input per class of the rules, several lines each.
var FramesSeeds = []string{
	// batches
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n" + `[]` + "\n" + `[1,2]`,
	// ids of every kind
	`{"jsonrpc":"2.0","id":4.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":[1],"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":-0,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"a\u0041","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"<&>","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"` + strings.Repeat("z", 200) + `","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"\n\t\"\\","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"é✓","method":"ping"}`,
	// duplicate keys
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_query","name":"write_query","arguments":{"query":"SELECT 1"}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT 1","\u0071uery":"SELECT 2"}}}`,
	`{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":9,"method":"ping","method":"tools/list"}`,
	// duplicate in-flight ids
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT 1"}}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT 1"}}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	// calls the SDK would refuse before any handler
	`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":[1]}` + "\n" + `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":5}}` + "\n" + `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope"}}` + "\n" + `{"jsonrpc":"2.0","id":13,"method":"tools/call"}` + "\n" + `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"read_query","_meta":5}}`,
	`{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"read_query","arguments":"x"}}` + "\n" + `{"jsonrpc":"2.0","id":16,"method":"nosuch"}` + "\n" + `{"jsonrpc":"2.0","id":17,"method":"ping","params":[1]}`,
	// notifications and responses with bad shapes
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}` + "\n" + `{"jsonrpc":"1.0","method":"x"}` + "\n" + `{"jsonrpc":"2.0","method":5}`,
	`{"jsonrpc":"2.0","id":20,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":21,"error":{"code":1,"message":"x"}}` + "\n" + `{"jsonrpc":"2.0","result":{}}` + "\n" + `{"jsonrpc":"2.0","id":22}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"notifications/initialized"}`,
	// not JSON-RPC at all
	"not json\n42\n\"str\"\nnull\n{}\n{\"jsonrpc\":\"2.0\"}\n  \r\n\x00\xff",
	`{"jsonrpc":"2.0","id":30,"method":"ping"} {"jsonrpc":"2.0","id":31,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":40,"method":"ping","params":{"a":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}}`,
	`{"jsonrpc":"2.0","id":41,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
}
