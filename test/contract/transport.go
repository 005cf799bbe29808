package contract

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// transportTools are the tools a writable server offers (docs/decisions.md#surface).
var transportTools = []string{
	"append_event", "checkpoint", "create_view", "describe_table", "destructive_query", "get_resume_context",
	"get_schema", "list_tables", "read_query", "retract_event", "search_memory", "search_text", "snapshot", "verify_chain", "write_query",
}

// transportCallTimeout bounds one call; nothing here should come close,
// on a busy machine either (slack.Of, read when the tests start).
var transportCallTimeout = slack.Of(20 * time.Second)

// TestTransport runs the contract every way of reaching the server must
// honour: whatever carries the JSON-RPC messages (in-memory pipes, the
// binary's stdio), the client sees the same server, the same tools and
// byte-identical text, tool errors stay tool errors, calls on one session
// are independent, and cancellation and closing work.
//
// connect must start a fresh server in its default, writable mode on a new
// empty database and return a connected client session that is closed when
// the test ends. The subtests run in parallel, so connect must be safe for
// concurrent use.
func TestTransport(t *testing.T, connect func(t *testing.T) *mcp.ClientSession) {
	t.Helper()
	t.Run("initialize names the server", func(t *testing.T) {
		t.Parallel()
		ir := connect(t).InitializeResult()
		require.NotNil(t, ir)
		require.NotNil(t, ir.ServerInfo)
		assert.Equal(t, "mcp-sqlite-memory", ir.ServerInfo.Name)
		assert.NotEmpty(t, ir.ServerInfo.Version)
		assert.Contains(t, ir.Instructions, "get_resume_context", "the instructions tell the agent where to start")
		assert.NotNil(t, ir.Capabilities.Tools)
	})
	t.Run("tools/list offers the 15 tools", func(t *testing.T) {
		t.Parallel()
		res, err := connect(t).ListTools(context.Background(), nil)
		require.NoError(t, err)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		assert.Equal(t, transportTools, names)
	})
	t.Run("ping", func(t *testing.T) {
		t.Parallel()
		assert.NoError(t, connect(t).Ping(context.Background(), nil))
	})
	t.Run("text survives the round trip byte for byte", func(t *testing.T) {
		t.Parallel()
		testTextRoundTrip(t, connect(t))
	})
	t.Run("an argument just under the 1 MiB request cap arrives whole", func(t *testing.T) {
		t.Parallel()
		cs := connect(t)
		// 1 MiB less 8 KiB on one JSON-RPC line: the stdio server's
		// default --max-request-bytes leaves room for the envelope.
		big := strings.Repeat("0123456789abcdef", 1<<16-512)
		mustTransportCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE big (v TEXT)"})
		mustTransportCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO big VALUES ('" + big + "')"})
		assert.Equal(t, "len,tail\n1040384,cdef\n# 1 rows",
			mustTransportCall(t, cs, "read_query", map[string]any{"query": "SELECT length(v) AS len, substr(v, -4) AS tail FROM big"}))
	})
	t.Run("a full-size result arrives whole", func(t *testing.T) {
		t.Parallel()
		// 65 rows of 501 bytes plus the header fill 32,567 of the default
		// 32,768-byte cap: the largest read_query answer, uncut.
		var want strings.Builder
		want.WriteString("v\n")
		for i := 1; i <= 65; i++ {
			fmt.Fprintf(&want, "%0500d\n", i)
		}
		want.WriteString("# 65 rows")
		assert.Equal(t, want.String(), mustTransportCall(t, connect(t), "read_query", map[string]any{
			"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 65) SELECT printf('%0500d', x) AS v FROM c",
			"limit": 100,
		}))
	})
	t.Run("tool errors are results, not protocol errors", func(t *testing.T) {
		t.Parallel()
		out, isErr, err := transportCall(connect(t), "read_query", map[string]any{"query": "SELECT * FROM nope"})
		require.NoError(t, err)
		assert.True(t, isErr)
		assert.Equal(t, "SQLite error: no such table: nope", out)
	})
	t.Run("an unknown tool is a protocol error and the session carries on", func(t *testing.T) {
		t.Parallel()
		cs := connect(t)
		_, _, err := transportCall(cs, "no_such_tool", nil)
		assert.Error(t, err)
		assert.Equal(t, "x\n1\n# 1 rows", mustTransportCall(t, cs, "read_query", map[string]any{"query": "SELECT 1 AS x"}))
	})
	t.Run("concurrent calls each get their own answer", func(t *testing.T) {
		t.Parallel()
		testConcurrentCalls(t, connect(t))
	})
	t.Run("a cancelled call stops on the server and the session carries on", func(t *testing.T) {
		t.Parallel()
		testCancel(t, connect(t))
	})
	t.Run("closing the session ends the server cleanly", func(t *testing.T) {
		t.Parallel()
		cs := connect(t)
		mustTransportCall(t, cs, "append_event", map[string]any{"content": "last words"})
		assert.NoError(t, cs.Close())
	})
}

// transportCall invokes a tool and returns its text and whether it is a
// tool error; a non-nil error is a protocol error. It never touches a
// testing.T, so goroutines may use it.
func transportCall(cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), transportCallTimeout)
	defer cancel()
	return transportCallCtx(ctx, cs, tool, args)
}

func transportCallCtx(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

func mustTransportCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	out, isErr, err := transportCall(cs, tool, args)
	require.NoError(t, err, "protocol error calling %s", tool)
	require.False(t, isErr, "%s failed: %s", tool, out)
	return out
}

// testTextRoundTrip sends awkward text inside arguments, checks the bytes
// the server stored (hex), and checks the bytes that come back in results.
func testTextRoundTrip(t *testing.T, cs *mcp.ClientSession) {
	values := []struct{ name, v string }{
		{"JSON-RPC lookalike with newlines", `{"jsonrpc":"2.0","id":99,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled"}` + "\r\n"},
		{"JSON escapes", `back\slash \n not a newline "quoted" \u0041 </script> <&>`},
		{"control characters", "\x01\x07\x08\t\x0b\x0c\x1b\x1f\x7f"},
		{"line and paragraph separators", "a\u2028b\u2029c\u0085d"},
		{"non-ASCII and non-BMP", "café ß 日本語 😀 \U0010FFFD"},
		{"lone carriage return", "one\rtwo"},
	}
	mustTransportCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE texts (id INTEGER PRIMARY KEY, v TEXT)"})
	for i, tc := range values {
		mustTransportCall(t, cs, "write_query", map[string]any{
			"query": fmt.Sprintf("INSERT INTO texts (id, v) VALUES (%d, '%s')", i+1, strings.ReplaceAll(tc.v, "'", "''"))})
	}
	for i, tc := range values {
		q := fmt.Sprintf("SELECT hex(v) AS h FROM texts WHERE id = %d", i+1)
		assert.Equal(t, "h\n"+strings.ToUpper(hex.EncodeToString([]byte(tc.v)))+"\n# 1 rows",
			mustTransportCall(t, cs, "read_query", map[string]any{"query": q}), "%s: stored bytes", tc.name)
		cell := tc.v
		if strings.ContainsAny(cell, ",\"\n\r") {
			cell = `"` + strings.ReplaceAll(cell, `"`, `""`) + `"`
		}
		q = fmt.Sprintf("SELECT v FROM texts WHERE id = %d", i+1)
		assert.Equal(t, "v\n"+cell+"\n# 1 rows", mustTransportCall(t, cs, "read_query", map[string]any{"query": q}), "%s: returned bytes", tc.name)
	}
	// The same text inside an error message comes back intact too.
	name := values[0].v
	out, isErr, err := transportCall(cs, "read_query", map[string]any{"query": `SELECT * FROM "` + strings.ReplaceAll(name, `"`, `""`) + `"`})
	require.NoError(t, err)
	assert.True(t, isErr)
	assert.Equal(t, "SQLite error: no such table: "+name, out)
}

// testConcurrentCalls fires calls from many goroutines on one session and
// checks that every answer is the one to its own question.
func testConcurrentCalls(t *testing.T, cs *mcp.ClientSession) {
	const n = 24
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tool, args := "read_query", map[string]any{"query": fmt.Sprintf("SELECT %d AS n", i)}
			if i%3 == 0 {
				tool, args = "append_event", map[string]any{"content": fmt.Sprintf("event from caller %d", i)}
			}
			var isErr bool
			got[i], isErr, errs[i] = transportCall(cs, tool, args)
			if errs[i] == nil && isErr {
				errs[i] = fmt.Errorf("tool error: %s", got[i])
			}
		})
	}
	wg.Wait()
	for i := range n {
		if !assert.NoError(t, errs[i], "caller %d", i) {
			continue
		}
		if i%3 == 0 {
			assert.Regexp(t, `^ok: event \d+ appended`, got[i], "caller %d", i)
		} else {
			assert.Equal(t, fmt.Sprintf("n\n%d\n# 1 rows", i), got[i], "caller %d", i)
		}
	}
	assert.Contains(t, mustTransportCall(t, cs, "verify_chain", nil), fmt.Sprintf(`"ok": true, "events": %d,`, (n+2)/3))
}

// testCancel cancels a call that would run for the whole query timeout and
// checks that the server stopped it early (its audit row says how long it
// ran) and that the session still answers.
func testCancel(t *testing.T, cs *mcp.ClientSession) {
	const slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, _, err := transportCallCtx(ctx, cs, "read_query", map[string]any{"query": slow})
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, cs.Ping(context.Background(), nil))

	// The audit row is written when the server-side call ends: soon after
	// the cancellation, long before the 10 s query timeout. Polling for it
	// is the signal that the call ended; testConcurrentCalls shows the
	// polling calls may overlap the cancelled one's end. Its error says
	// what stopped it: the cancellation, not the deadline (which a busy
	// machine could make a timed check mistake it for).
	var row string
	require.Eventually(t, func() bool {
		out, _, err := transportCall(cs, "read_query", map[string]any{
			"query": "SELECT ok, error LIKE '%was cancelled before it finished%' AS cancelled FROM query_log WHERE query LIKE 'WITH RECURSIVE%'"})
		row = out
		return err == nil && !strings.HasSuffix(out, "# 0 rows")
	}, slack.Of(8*time.Second), 50*time.Millisecond, "the cancelled call never ended on the server")
	assert.Equal(t, "ok,cancelled\n0,1\n# 1 rows", row, "the cancelled call was stopped by its cancellation, not by the deadline")
}
