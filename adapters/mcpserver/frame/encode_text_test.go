package frame

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigTexts are adversarial texts around and above spliceMinBytes: every
// character class encoding/json treats specially, invalid UTF-8 (written
// as U+FFFD), lone surrogate encodings, and random mixtures of them.
func bigTexts(t *testing.T) []string {
	t.Helper()
	pieces := []string{
		"a", ",", "\n", "\r\n", "\"", "\\", "<", ">", "&", "\u2028", "\u2029", "\x00", "\x01", "\x08", "\x0c", "\t",
		"\x1f", "\x7f", "\xff", "\xfe", "\xc3", "\xed\xa0\x80", "é", "🎉", "\xf0\x9f", "\ufffd", "/", "'", "%", "{", "}",
		"mcp-sqlite-memory-text-", `","text":"`, "\\u0000",
	}
	rng := rand.New(rand.NewPCG(13, 2026))
	texts := []string{
		strings.Repeat("x", spliceMinBytes-1), strings.Repeat("x", spliceMinBytes),
		strings.Repeat("1,item 1,1.25,tag1,1,a short note\n", 2000),
		strings.Repeat("<script>&amp;\u2028\xff\"\\\x00", 1000),
	}
	for _, p := range pieces {
		texts = append(texts, strings.Repeat(p, spliceMinBytes/len(p)+1))
	}
	for range 200 {
		var b strings.Builder
		n := spliceMinBytes/2 + rng.IntN(3*spliceMinBytes)
		for b.Len() < n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	return texts
}

// spliceThrough runs a tools/call answer res through the middleware, the
// SDK's marshal and the splicing transport, and returns the line written.
func spliceThrough(t *testing.T, sp *textSplicer, id jsonrpc.ID, res *mcp.CallToolResult, edit func(*mcp.CallToolResult)) string {
	t.Helper()
	h := spliceMiddleware(func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil })
	got, err := h(withSplicer(context.Background(), sp), "tools/call", nil)
	require.NoError(t, err)
	if edit != nil {
		edit(got.(*mcp.CallToolResult))
	}
	line, err := sp.appendMessage(nil, &jsonrpc.Response{ID: id, Result: sdkRaw(t, got)})
	require.NoError(t, err)
	return string(line)
}

// sdkLine is the line the SDK alone writes for res.
func sdkLine(t *testing.T, id jsonrpc.ID, res *mcp.CallToolResult) string {
	t.Helper()
	want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: sdkRaw(t, res)})
	require.NoError(t, err)
	return string(want)
}

// TestTextSplicerMatchesSDK: a spliced answer is byte for byte the SDK's
// own, over adversarial and random texts, integer and string ids, with and
// without structuredContent and isError, and no text stays pending.
func TestTextSplicerMatchesSDK(t *testing.T) {
	sp := newTextSplicer()
	sid, err := jsonrpc.MakeID("req-<\u2028>")
	require.NoError(t, err)
	ids := []jsonrpc.ID{perf3ID(t, 1), perf3ID(t, 1<<53), sid}
	for i, text := range bigTexts(t) {
		id := ids[i%len(ids)]
		mk := func() *mcp.CallToolResult {
			r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: i%5 == 0}
			if i%2 == 0 {
				r.StructuredContent = map[string]any{"rows": []string{text[:min(len(text), 300)], sp.secret + "1"}}
			}
			return r
		}
		want := sdkLine(t, id, mk())
		got := spliceThrough(t, sp, id, mk(), nil)
		sameLine(t, want, got, fmt.Sprintf("text %d", i))
	}
	assert.Empty(t, sp.pending, "every text was written")
}

// TestTextSplicerLeavesLookalikesAlone: agent text that looks like a
// placeholder (another session's secret, this session's secret with a
// number not pending, the bare secret) is written as it is, and the
// pending text still reaches its own answer. The one text that would be
// taken, this session's secret with a pending number, the agent cannot
// write: the secret is 128 random bits and never leaves the process (no
// written line holds it, asserted here and in every test of the splicer).
func TestTextSplicerLeavesLookalikesAlone(t *testing.T) {
	sp := newTextSplicer()
	big := strings.Repeat("pending ", spliceMinBytes)
	pendingLine := ""
	h := spliceMiddleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil
	})
	held, err := h(withSplicer(context.Background(), sp), "tools/call", nil)
	require.NoError(t, err)
	require.Len(t, sp.pending, 1)
	for _, text := range []string{newTextSplicer().secret + "1", sp.secret + "2", "mcp-sqlite-memory-text-00-1", sp.secret} {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"t": text}}
		line, err := sp.appendMessage(nil, &jsonrpc.Response{ID: perf3ID(t, 9), Result: sdkRaw(t, res)})
		require.NoError(t, err)
		sameLine(t, sdkLine(t, perf3ID(t, 9), res), string(line), "a short agent text is not spliced")
		// A long text holding a lookalike is written as the SDK writes it.
		long := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text + strings.Repeat("y", spliceMinBytes)}}}
		sameLine(t, sdkLine(t, perf3ID(t, 10), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text + strings.Repeat("y", spliceMinBytes)}}}),
			spliceThrough(t, sp, perf3ID(t, 10), long, nil), "a long text holding a lookalike")
	}
	line, err := sp.appendMessage(nil, &jsonrpc.Response{ID: perf3ID(t, 3), Result: sdkRaw(t, held)})
	require.NoError(t, err)
	pendingLine = string(line)
	sameLine(t, sdkLine(t, perf3ID(t, 3), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}), pendingLine, "the pending text")
	assert.NotContains(t, pendingLine, sp.secret, "a placeholder is never written")
	assert.Empty(t, sp.pending)
}

// TestTextSplicerFindsTheTextAfterMeta: the SDK puts _meta (serverInfo,
// for clients of protocol 2026-07-28) before the content after the
// middleware ran; the text is still spliced in place, a _meta holding
// look-alikes of the content key and of the placeholder included.
func TestTextSplicerFindsTheTextAfterMeta(t *testing.T) {
	text := strings.Repeat("<a\u2028\xff>", spliceMinBytes)
	for i, meta := range []mcp.Meta{
		{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "mcp-sqlite-memory", "version": "1"}},
		{"k": spliceContentKey + "x", "j": `"}],"content":[{"type":"text","text":"`},
		{"a": map[string]any{"b": []any{"{", "}", `\"`, 1.5, nil}}},
	} {
		sp := newTextSplicer()
		meta["s"] = sp.secret + "1"
		var block *mcp.TextContent
		got := spliceThrough(t, sp, perf3ID(t, 4), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}},
			func(r *mcp.CallToolResult) { r.Meta = meta; block = r.Content[0].(*mcp.TextContent) })
		want := sdkLine(t, perf3ID(t, 4), &mcp.CallToolResult{Meta: meta, Content: []mcp.Content{&mcp.TextContent{Text: text}}})
		sameLine(t, want, got, fmt.Sprintf("meta %d", i))
		assert.True(t, strings.HasPrefix(block.Text, sp.secret), "meta %d: spliced in place, not marshalled again", i)
		assert.Empty(t, sp.pending)
	}
}

// TestTextSplicerFallsBackWhenNotAtTheStart: a result whose placeholder
// is not where the SDK writes the first text (here: another block added
// before it after the middleware) is marshalled again whole, as the SDK
// would, with the right block's text put back.
func TestTextSplicerFallsBackWhenNotAtTheStart(t *testing.T) {
	sp := newTextSplicer()
	text := strings.Repeat("<a\u2028\xff>", spliceMinBytes)
	got := spliceThrough(t, sp, perf3ID(t, 4), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}},
		func(r *mcp.CallToolResult) {
			r.Content = append([]mcp.Content{&mcp.TextContent{Text: "first"}}, r.Content...)
		})
	want := sdkLine(t, perf3ID(t, 4), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "first"}, &mcp.TextContent{Text: text}}})
	sameLine(t, want, got, "fallback")
	assert.NotContains(t, got, sp.secret)
	assert.Empty(t, sp.pending)
}

// TestTextSplicerOnlyForItsSession: without the splicer in the context
// (an HTTP session), or for small texts, errors, other methods and other
// content, the middleware leaves the result alone.
func TestTextSplicerOnlyForItsSession(t *testing.T) {
	big := strings.Repeat("z", 2*spliceMinBytes)
	sp := newTextSplicer()
	cases := []struct {
		ctx    context.Context
		method string
		res    *mcp.CallToolResult
	}{
		{context.Background(), "tools/call", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}},
		{withSplicer(context.Background(), sp), "tools/call", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "small"}}}},
		{withSplicer(context.Background(), sp), "prompts/get", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}},
		{withSplicer(context.Background(), sp), "tools/call", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte(big)}}}},
		{withSplicer(context.Background(), sp), "tools/call", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big, Annotations: &mcp.Annotations{Priority: 1}}}}},
		{withSplicer(context.Background(), sp), "tools/call", &mcp.CallToolResult{Meta: mcp.Meta{"a": 1}, Content: []mcp.Content{&mcp.TextContent{Text: big}}}},
	}
	for i, c := range cases {
		want, err := json.Marshal(c.res)
		require.NoError(t, err)
		h := spliceMiddleware(func(context.Context, string, mcp.Request) (mcp.Result, error) { return c.res, nil })
		got, err := h(c.ctx, c.method, nil)
		require.NoError(t, err)
		b, err := json.Marshal(got)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(b), "case %d", i)
	}
	assert.Empty(t, sp.pending)
}

// TestTextSplicerThroughTheSDK runs a real SDK server with a tool over the
// stdio transport, with and without the splicer, and compares every line
// it writes, answers written out of order by concurrent calls included.
func TestTextSplicerThroughTheSDK(t *testing.T) {
	texts := bigTexts(t)[:40]
	run := func(splice bool) map[string]string {
		srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		srv.AddReceivingMiddleware(spliceMiddleware)
		srv.AddTool(&mcp.Tool{Name: "big", InputSchema: &jsonschema.Schema{Type: "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ N int }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: texts[in.N]}}}, nil
		})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		g := newFrameGuard(inR, io.Discard, 1<<20, func(refusal) []byte { return nil }, nil, slog.New(slog.DiscardHandler), newExchange())
		tr := &guardTransport{guard: g, out: outW}
		ctx := context.Background()
		if splice {
			tr.splice = newTextSplicer()
			ctx = withSplicer(ctx, tr.splice)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, tr) }()
		lines := map[string]string{}
		var wg sync.WaitGroup
		wg.Go(func() {
			sc := bufio.NewScanner(outR)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				var m struct{ ID json.RawMessage }
				assert.NoError(t, json.Unmarshal(sc.Bytes(), &m)) // not require: this is not the test goroutine
				lines[string(m.ID)] = sc.Text()
				if tr.splice != nil {
					assert.NotContains(t, sc.Text(), tr.splice.secret, "a placeholder is never written")
				}
				if len(lines) == len(texts)+1 {
					return
				}
			}
		})
		_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		require.NoError(t, err)
		for i := range texts {
			_, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"N":%d}}}`+"\n", i, i)
			require.NoError(t, err)
		}
		wg.Wait()
		inW.Close()
		<-done
		if splice {
			assert.Empty(t, tr.splice.pending)
		}
		return lines
	}
	plain, spliced := run(false), run(true)
	require.Len(t, spliced, len(texts)+1)
	for id, want := range plain {
		sameLine(t, want, spliced[id], "answer "+id)
	}
}

// sameLine asserts got == want, showing only where they first differ.
func sameLine(t *testing.T, want, got, what string) {
	t.Helper()
	if want == got {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	assert.Failf(t, "lines differ", "%s: lengths %d / %d, first difference at byte %d: want %q, got %q", what, len(want), len(got), i,
		want[max(0, i-40):min(len(want), i+40)], got[max(0, i-40):min(len(got), i+40)])
}

// teeCloser records every line written to it and passes it on.
type teeCloser struct {
	mu    sync.Mutex
	lines []string
	w     io.WriteCloser
}

func (t *teeCloser) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.lines = append(t.lines, string(p))
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *teeCloser) Close() error { return t.w.Close() }

// TestTextSplicerThroughTheSDKClient: the SDK's own client (protocol
// 2026-07-28, where the SDK adds _meta to every result) calls a real SDK
// server over the stdio transport; every raw line the server writes is
// the same with and without the splicer, and the client reads each text
// whole.
func TestTextSplicerThroughTheSDKClient(t *testing.T) {
	texts := bigTexts(t)[:30]
	run := func(splice bool) (lines, read []string) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		srv.AddReceivingMiddleware(spliceMiddleware)
		srv.AddTool(&mcp.Tool{Name: "big", InputSchema: &jsonschema.Schema{Type: "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ N int }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: texts[in.N]}}}, nil
		})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		tee := &teeCloser{w: outW}
		g := newFrameGuard(inR, io.Discard, 1<<20, func(refusal) []byte { return nil }, nil, slog.New(slog.DiscardHandler), newExchange())
		tr := &guardTransport{guard: g, out: tee}
		ctx := context.Background()
		if splice {
			tr.splice = newTextSplicer()
			ctx = withSplicer(ctx, tr.splice)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, tr) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW, MaxLineLength: -1}, nil)
		require.NoError(t, err)
		for i, text := range texts {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"N": i}})
			require.NoError(t, err)
			require.Len(t, res.Content, 1)
			got := res.Content[0].(*mcp.TextContent).Text
			read = append(read, got)
			if utf8.ValidString(text) {
				assert.True(t, text == got, "text %d read whole", i)
			}
		}
		require.NoError(t, cs.Close())
		<-done
		tee.mu.Lock()
		defer tee.mu.Unlock()
		if splice {
			assert.Empty(t, tr.splice.pending)
			for _, l := range tee.lines {
				assert.NotContains(t, l, tr.splice.secret, "a placeholder is never written")
			}
		}
		return slices.Clone(tee.lines), read
	}
	plain, plainRead := run(false)
	spliced, splicedRead := run(true)
	assert.True(t, slices.Equal(plainRead, splicedRead), "the client reads the same texts")
	require.Len(t, spliced, len(plain))
	sawMeta := false
	for i := range plain {
		sameLine(t, plain[i], spliced[i], fmt.Sprintf("line %d", i))
		sawMeta = sawMeta || strings.Contains(plain[i], `"result":{"_meta":{`)
	}
	assert.True(t, sawMeta, "the SDK client's protocol puts _meta first in results")
}
