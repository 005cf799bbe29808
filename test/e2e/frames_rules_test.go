package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// framesRulesCall is a raw tools/call line.
func framesRulesCall(id, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
}

// framesRulesAnswers parses the whole stdout of a finished session into its
// answers, keyed by raw id (null answers under "null"), in order.
func framesRulesAnswers(t *testing.T, stdout string) map[string][]response {
	t.Helper()
	got := map[string][]response{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r response
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		if len(r.ID) > 0 && (r.Result != nil || r.Error != nil) {
			got[string(r.ID)] = append(got[string(r.ID)], r)
		}
	}
	return got
}

// framesRulesText is the text of a tool result, and whether it is a tool
// error.
func framesRulesText(t *testing.T, r response) (string, bool) {
	t.Helper()
	require.Nil(t, r.Error, "a tool result, not a JSON-RPC error")
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	require.Len(t, res.Content, 1)
	return res.Content[0].Text, res.IsError
}

// TestEveryFrameIsAnsweredUnderItsOwnID sends the binary one line of every
// class in the frame table of docs/decisions.md#frames (batches, ids of every JSON type,
// ids the SDK would answer changed, duplicate keys, calls the SDK would
// refuse before any handler, notifications and responses with bad shapes)
// and checks that each gets what the table says, under its exact id, that
// the session goes on and exits cleanly, and that stdout stays JSON-RPC.
func TestEveryFrameIsAnsweredUnderItsOwnID(t *testing.T) {
	t.Parallel()
	s := startRaw(t, "--db", newDB(t))
	type want struct {
		id   string // raw id of the answer; "" for none
		code int    // JSON-RPC error code; 0 for a tool error
		text string // part of the message
	}
	cases := []struct {
		line string
		want want
	}{
		{`[{"jsonrpc":"2.0","id":100,"method":"ping"},{"jsonrpc":"2.0","id":101,"method":"ping"}]`, want{"null", -32600, "batches are not supported"}},
		{`{"jsonrpc":"2.0","id":4.5,"method":"ping"}`, want{"4.5", -32600, "not an integer"}},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, want{"1e3", -32600, "not an integer"}},
		{`{"jsonrpc":"2.0","id":123456789012345678901,"method":"ping"}`, want{"123456789012345678901", -32600, "2^53"}},
		{`{"jsonrpc":"2.0","id":"\u0061b","method":"ping"}`, want{`"\u0061b"`, -32600, "escapes"}},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, want{"null", -32600, "id is null"}},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, want{"null", -32600, "invalid ID type"}},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, want{"null", -32600, "invalid ID type"}},
		{`{"jsonrpc":"2.0","id":false,"method":"ping"}`, want{"null", -32600, "invalid ID type"}},
		{`{"jsonrpc":"2.0","id":102,"id":103,"method":"ping"}`, want{"null", -32600, `"id" appears twice`}},
		{`{"jsonrpc":"2.0","id":104,"method":"ping","params":{"_meta":{"k":1,"k":2}}}`, want{"104", -32600, `"k" appears twice`}},
		{framesRulesCall("105", `{"name":"read_query","name":"write_query","arguments":{"query":"SELECT 1"}}`), want{"105", 0, `"name" appears twice`}},
		{framesRulesCall("106", `{"name":"write_query","arguments":{"query":"CREATE TABLE first (a)","query":"CREATE TABLE last (a)"}}`), want{"106", 0, `"query" appears twice`}},
		{framesRulesCall("107", `[1]`), want{"107", -32602, `"params" as an object`}},
		{framesRulesCall("108", `{"name":7}`), want{"108", -32602, `"params.name" as a string`}},
		{framesRulesCall("109", `{"name":"no_such_tool"}`), want{"109", -32602, `unknown tool "no_such_tool"`}},
		{`{"jsonrpc":"2.0","id":110,"method":"tools/call"}`, want{"110", -32602, `"params" as an object`}},
		{`{"jsonrpc":"2.0","id":111}`, want{"111", -32600, `needs a "method"`}},
		{`{"jsonrpc":"2.0","id":"<é&>","method":"ping"}`, want{`"<é&>"`, 0, ""}},
		{`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`, want{"-9007199254740992", 0, ""}},
		// Notifications and responses are never answered.
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}`, want{}},
		{`{"jsonrpc":"2.0","method":"notifications/whatever","params":{"a":1,"a":2}}`, want{}},
		{`{"jsonrpc":"1.0","method":"notifications/initialized"}`, want{}},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_query","arguments":{"query":"CREATE TABLE sneaky (a)"}}}`, want{}},
		{`{"jsonrpc":"2.0","id":112,"result":{}}`, want{}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`, want{}},
	}
	for _, tc := range cases {
		_, err := s.stdin.Write([]byte(tc.line + "\n"))
		require.NoError(t, err)
	}
	out, isErr := s.callTool(t, "read_query", map[string]any{"query": "SELECT tool, ok, substr(error, 1, 60) AS error FROM query_log ORDER BY id"})
	require.False(t, isErr, out)
	assert.Contains(t, out, "tools/call,0,\"invalid request: the key \"\"name\"\" appears", "a tool named twice is audited as tools/call")
	assert.Contains(t, out, "write_query,0,\"invalid request: the key \"\"query\"\" appea", "a refused call is audited under its tool")
	assert.Contains(t, out, "tools/call,0,\"invalid params: tools/call needs \"\"params\"\" ", "params that are not an object are audited")
	assert.Contains(t, out, "tools/call,0,\"invalid params: tools/call needs \"\"params.n", "a tool name that is not a string is audited")
	assert.Contains(t, out, "tools/call,0,\"unknown tool \"\"no_such_tool\"\"", "an unknown tool is audited")
	assert.Contains(t, out, "write_query,0,\"invalid request: tools/call was sent without an id", "a call sent as a notification is not run, but audited")
	out, isErr = s.callTool(t, "list_tables", map[string]any{})
	require.False(t, isErr, out)
	assert.NotContains(t, out, "sneaky", "a call sent as a notification is not run")
	assert.NotContains(t, out, "first", "neither of two duplicate queries ran")
	assert.NotContains(t, out, "last", "neither of two duplicate queries ran")

	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 0, s.wait(t, exitBudget), "the session ends only with its input, cleanly")
	checkJSONRPCStream(t, []byte(s.stdout.String()))
	answers := framesRulesAnswers(t, s.stdout.String())
	nulls := 0
	for _, tc := range cases {
		switch {
		case tc.want.id == "":
			continue
		case tc.want.id == "null":
			nulls++
			continue
		}
		got := answers[tc.want.id]
		if !assert.Len(t, got, 1, "exactly one answer under id %s for %s", tc.want.id, tc.line) {
			continue
		}
		switch {
		case tc.want.text == "":
			assert.Nil(t, got[0].Error, tc.line)
		case tc.want.code != 0:
			if assert.NotNil(t, got[0].Error, tc.line) {
				assert.Equal(t, tc.want.code, got[0].Error.Code, tc.line)
				assert.Contains(t, got[0].Error.Message, tc.want.text, tc.line)
			}
		default:
			text, isErr := framesRulesText(t, got[0])
			assert.True(t, isErr, tc.line)
			assert.Contains(t, text, tc.want.text, tc.line)
		}
	}
	assert.Len(t, answers["null"], nulls, "one id-null error per frame whose id cannot be echoed")
	for _, id := range []string{"100", "101", "103", "112"} {
		assert.Empty(t, answers[id], "nothing answers under id %s", id)
	}
}

// TestDuplicateInFlightIDIsRefusedAndTheFirstAnswered sends a slow call,
// then another request with the same id while it runs: the second gets an
// invalid-request error under that id at once, the first its normal
// answer; the id is free again afterwards.
func TestDuplicateInFlightIDIsRefusedAndTheFirstAnswered(t *testing.T) {
	t.Parallel()
	s := startRaw(t, "--db", newDB(t))
	slow := framesRulesCall(`"dup"`, `{"name":"read_query","arguments":{"query":"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000) SELECT count(*) AS n FROM c"}}`)
	again := framesRulesCall(`"dup"`, `{"name":"write_query","arguments":{"query":"CREATE TABLE never (a)"}}`)
	_, err := s.stdin.Write([]byte(slow + "\n" + again + "\n"))
	require.NoError(t, err)
	var got []response
	deadline := time.After(callTimeout)
	for len(got) < 2 {
		select {
		case line, ok := <-s.lines:
			require.True(t, ok, "the server closed stdout")
			var r response
			if json.Unmarshal(line, &r) == nil && string(r.ID) == `"dup"` {
				got = append(got, r)
			}
		case <-deadline:
			require.FailNow(t, "no answers", "got %d", len(got))
		}
	}
	require.NotNil(t, got[0].Error, "the duplicate is refused first, while the first call runs")
	assert.Equal(t, -32600, got[0].Error.Code)
	assert.Contains(t, got[0].Error.Message, "already in use by a request still running")
	text, isErr := framesRulesText(t, got[1])
	assert.False(t, isErr, text)
	assert.Equal(t, "n\n300000\n# 1 rows", text, "the first call is answered normally")

	r := s.request(t, "ping", nil)
	assert.Nil(t, r.Error)
	out, isErr := s.callTool(t, "read_query", map[string]any{"query": "SELECT tool, ok FROM query_log WHERE error LIKE '%already in use%'"})
	require.False(t, isErr, out)
	assert.Equal(t, "tool,ok\nwrite_query,0\n# 1 rows", out, "the refused duplicate is audited under its tool")
	_, err = s.stdin.Write([]byte(framesRulesCall(`"dup"`, `{"name":"list_tables","arguments":{}}`) + "\n"))
	require.NoError(t, err)
	require.NoError(t, s.stdin.Close())
	s.wait(t, exitBudget)
	answers := framesRulesAnswers(t, s.stdout.String())
	require.Len(t, answers[`"dup"`], 3, "the id is free again once answered")
	text, isErr = framesRulesText(t, answers[`"dup"`][2])
	assert.False(t, isErr, text)
	assert.NotContains(t, text, "never", "the refused write never ran")
}
