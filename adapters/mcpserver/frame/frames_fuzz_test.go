package frame_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// maxIDBytes is the longest id the guard echoes.
const maxIDBytes = frame.MaxIDBytes

// framesMax is the request cap in the fuzz session: inputs stay below it.
const framesMax = 1 << 16

// framesSentinel is the last request of every fuzz session: its answer
// shows the session outlived every line before it.
const framesSentinel = `{"jsonrpc":"2.0","id":"frames-sentinel","method":"ping"}`

// framesSession runs the real guard and SDK server in process over pipes,
// writes the handshake, lines and the sentinel, waits for the sentinel's
// answer, closes stdin and returns every stdout line once Serve returned.
func framesSession(t testing.TB, tools ports.Tools, lines []string, max int) []string {
	t.Helper()
	limits := domain.DefaultLimits()
	limits.MaxRequestBytes = max
	srv := mcpserver.New(tools, mcpserver.Options{Version: "fuzz", Limits: limits})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		_ = outW.Close()
		served <- err
	}()
	var out []string
	sentinel := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
		seen := false
		for sc.Scan() {
			out = append(out, sc.Text())
			if !seen && strings.Contains(sc.Text(), `"id":"frames-sentinel"`) {
				seen = true
				close(sentinel)
			}
		}
		_, _ = io.Copy(io.Discard, outR)
	}()
	go func() {
		w := bufio.NewWriter(inW)
		_, _ = w.WriteString(`{"jsonrpc":"2.0","id":"frames-init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n")
		_, _ = w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for _, l := range lines {
			_, _ = w.WriteString(l + "\n")
		}
		_, _ = w.WriteString(framesSentinel + "\n")
		_ = w.Flush()
	}()
	select {
	case <-sentinel:
	case err := <-served:
		require.FailNow(t, "the session ended before the last line was answered", "Serve returned %v", err)
	case <-time.After(20 * time.Second):
		require.FailNow(t, "the sentinel request got no answer")
	}
	_ = inW.Close()
	select {
	case err := <-served:
		require.NoError(t, err, "Serve ends cleanly at the end of its input")
	case <-time.After(20 * time.Second):
		require.FailNow(t, "Serve did not return after stdin closed")
	}
	<-read
	return out
}

// framesExpected returns the raw id every line must be answered under, if
// any: a JSON object line with exactly one top-level "id" that is a JSON
// string or number of at most maxIDBytes bytes, unless it is a response
// (no "method", but a "result" or "error"). This oracle is written from
// the rules in docs/decisions.md#frames, not from the guard's code. An id in
// invalid UTF-8 is answered under null: stdout carries only valid JSON.
func framesExpected(line string) (string, bool) {
	frame := bytes.TrimSpace([]byte(line))
	if len(frame) == 0 || frame[0] != '{' || !json.Valid(frame) {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	if _, err := dec.Token(); err != nil {
		return "", false
	}
	var id json.RawMessage
	ids := 0
	keys := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		keys[key] = true
		if key == "id" {
			ids++
			id = v
		}
	}
	if ids != 1 || len(id) == 0 || len(id) > maxIDBytes || !utf8.Valid(id) {
		return "", false
	}
	if c := id[0]; c != '"' && c != '-' && (c < '0' || c > '9') {
		return "", false
	}
	if !keys["method"] && (keys["result"] || keys["error"]) {
		return "", false
	}
	return string(id), true
}

// framesScanned is the id the guard answers an oversized line under when
// the line is not JSON: what the constant-memory scanner finds.
func framesScanned(line string) (string, bool) {
	var s frame.Scanner
	_, _ = s.Write([]byte(line + "\n"))
	r := s.Refusal(0, "")
	if r.Silent() || r.ID() == nil {
		return "", false
	}
	return string(r.ID()), true
}

// checkFrames asserts the guard's promises over one session: stdout is
// only JSON-RPC messages, one per line, and every request line with an
// id that can be echoed gets exactly one answer with that id, byte for
// byte (counted as a multiset: a duplicate in-flight id gets two answers,
// the second an error).
func checkFrames(t testing.TB, lines, out []string, max int) {
	t.Helper()
	want := map[string]int{`"frames-init"`: 1, `"frames-sentinel"`: 1}
	for _, l := range lines {
		id, ok := framesExpected(l)
		if len(l)+1 > max && !json.Valid(bytes.TrimSpace([]byte(l))) {
			// Too large to read whole and not JSON: the answer goes to
			// whatever id the constant-memory scan finds (best effort).
			id, ok = framesScanned(l)
		}
		if ok {
			want[id]++
		}
	}
	got := map[string]int{}
	for i, l := range out {
		var msg map[string]json.RawMessage
		dec := json.NewDecoder(strings.NewReader(l))
		require.NoError(t, dec.Decode(&msg), "stdout line %d is not a JSON object: %q", i, l)
		require.False(t, dec.More(), "stdout line %d holds more than one value: %q", i, l)
		require.Equal(t, `"2.0"`, string(msg["jsonrpc"]), "stdout line %d: %q", i, l)
		_, isRequest := msg["method"]
		_, hasResult := msg["result"]
		_, hasError := msg["error"]
		if isRequest {
			continue // the server's own notifications
		}
		require.True(t, hasResult != hasError, "stdout line %d is not a response: %q", i, l)
		if string(msg["id"]) != "null" {
			got[string(msg["id"])]++
		}
	}
	assert.Equal(t, want, got, "every request with an id gets exactly one answer under that id")
}

// FuzzFrames feeds arbitrary input lines to the real frame guard and SDK
// server: the session never ends early, stdout stays JSON-RPC, and every
// request with an id that can be echoed is answered exactly once under it.
func FuzzFrames(f *testing.F) {
	for _, seed := range frame.FramesSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		if len(input) > framesMax/2 || strings.Contains(input, "frames-sentinel") || strings.Contains(input, "frames-init") {
			t.Skip()
		}
		lines := strings.Split(input, "\n")
		// One input in three runs under a small request cap, so that the
		// constant-memory path for oversized frames is fuzzed too.
		max := framesMax
		if len(input)%3 == 0 {
			max = 160
		}
		out := framesSession(t, &fake.Tools{}, lines, max)
		checkFrames(t, lines, out, max)
	})
}

// TestFramesSeedsHoldTheRules runs every seed as a plain test, so the rules
// hold in every `go test` run, fuzzing or not.
func TestFramesSeedsHoldTheRules(t *testing.T) {
	t.Parallel()
	for i, seed := range frame.FramesSeeds {
		lines := strings.Split(seed, "\n")
		tools := &fake.Tools{}
		out := framesSession(t, tools, lines, framesMax)
		checkFrames(t, lines, out, framesMax)
		out = framesSession(t, &fake.Tools{}, lines, 100)
		checkFrames(t, lines, out, 100)
		if t.Failed() {
			t.Logf("seed %d:\n%s\nstdout:\n%s", i, seed, strings.Join(out, "\n"))
			return
		}
	}
}

// TestRefusedToolCallsAreAudited checks that every tool call the guard
// refuses reaches ports.Tools.Reject, under the tool it names when this
// server offers it, and that a duplicate in-flight id is refused while the
// first call is answered normally.
func TestRefusedToolCallsAreAudited(t *testing.T) {
	t.Parallel()
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	lines := []string{
		call("1", `{"name":"read_query","arguments":{"query":"SELECT 1"}}`),
		call("1", `{"name":"list_tables","arguments":{}}`),
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		call("2", `{"name":"read_query","name":"snapshot"}`),
		call("3", `{"name":"list_tables","arguments":{"include_row_counts":true,"include_row_counts":false}}`),
		call("4", `{"name":"no_such_tool"}`),
		call("5", `[1]`),
		call("6", `{"name":5}`),
		call("null", `{"name":"get_schema"}`),
		call("7.5", `{"name":"get_schema"}`),
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"snapshot","arguments":{}}}`,
	}
	tools := &fake.Tools{Slow: 300 * time.Millisecond}
	out := framesSession(t, tools, lines, framesMax)
	checkFrames(t, lines, out, framesMax)
	assert.Equal(t, map[string]int{"list_tables": 2, "tools/call": 4, "get_schema": 2, "snapshot": 1}, tools.Rejected())
	var first []string
	for _, l := range out {
		if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,`) {
			first = append(first, l)
		}
	}
	if assert.Len(t, first, 3) {
		assert.Contains(t, first[0], `"code":-32600`, "the second call with id 1 is refused while the first runs")
		assert.Contains(t, first[0], "already in use")
		assert.Contains(t, first[1], `"code":-32600`, "and so is a ping with that id")
		assert.Contains(t, first[2], `x\n1\n# 1 rows`, "the first call is answered normally, last")
	}
}
