package tools_test

//lint:file-ignore SA1019 this file tests the MCP logging the server still offers (deprecated as of protocol 2026-07-28, SEP-2577; see adapters/mcpserver/clientlog.go)

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// edgesClient connects an in-memory client that records the progress and
// log notifications it receives.
type edgesClient struct {
	cs       *mcp.ClientSession
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	logs     []*mcp.LoggingMessageParams
}

func edgesConnect(t *testing.T, c harness.Config) (*edgesClient, *harness.Env) {
	t.Helper()
	server, env := harness.Server(t, c)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	ec := &edgesClient{}
	client := mcp.NewClient(&mcp.Implementation{Name: "edges", Version: "test"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			ec.mu.Lock()
			ec.progress = append(ec.progress, r.Params)
			ec.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			ec.mu.Lock()
			ec.logs = append(ec.logs, r.Params)
			ec.mu.Unlock()
		},
	})
	ec.cs, err = client.Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ec.cs.Close() })
	return ec, env
}

// call runs a tool, with a progress token when token is not nil.
func (ec *edgesClient) call(t *testing.T, tool string, args map[string]any, token any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := ec.cs.CallTool(context.Background(), p)
	require.NoError(t, err)
	require.False(t, res.IsError, "%s failed: %v", tool, res.Content)
	return res
}

// progressFor waits briefly for notifications to arrive (they travel ahead
// of the answer, but are handled on their own goroutine) and returns those
// carrying token.
func (ec *edgesClient) progressFor(token any, atLeast int) []*mcp.ProgressNotificationParams {
	deadline := time.Now().Add(slack.Of(5 * time.Second))
	for {
		ec.mu.Lock()
		var out []*mcp.ProgressNotificationParams
		for _, p := range ec.progress {
			if p.ProgressToken == token {
				out = append(out, p)
			}
		}
		ec.mu.Unlock()
		if len(out) >= atLeast || time.Now().After(deadline) {
			return out
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProgressNotificationsWhenTheClientSendsAToken(t *testing.T) {
	ec, _ := edgesConnect(t, harness.Config{})
	ec.call(t, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)"}, nil)
	ec.call(t, "write_query", map[string]any{"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2500) INSERT INTO t(body) SELECT 'row ' || x FROM c"}, nil)

	ec.call(t, "snapshot", map[string]any{"reason": "test"}, "snap")
	snap := ec.progressFor("snap", 2)
	require.Len(t, snap, 2)
	assert.Equal(t, []float64{0, 1}, []float64{snap[0].Progress, snap[1].Progress})
	assert.Equal(t, 1.0, snap[1].Total)
	assert.Equal(t, "snapshot written", snap[1].Message)

	ec.call(t, "destructive_query", map[string]any{"query": "DELETE FROM t WHERE id > 2400", "reason": "test"}, 7)
	destr := ec.progressFor(float64(7), 2) // JSON numbers arrive as float64
	require.Len(t, destr, 2)
	assert.Equal(t, []float64{1, 2}, []float64{destr[0].Progress, destr[1].Progress})
	assert.Equal(t, 3.0, destr[0].Total)
	assert.Contains(t, destr[0].Message, "writing a snapshot")

	ec.call(t, "search_text", map[string]any{"table": "t", "pattern": "row 1"}, "find")
	found := ec.progressFor("find", 2)
	require.Len(t, found, 2, "one report per 1000 candidate rows")
	assert.Less(t, found[0].Progress, found[1].Progress)
	assert.Contains(t, found[1].Message, "2000 candidate rows read")

	// Without a token, no notification at all.
	before := len(ec.progressFor("none", 0))
	ec.call(t, "snapshot", map[string]any{"reason": "quiet"}, nil)
	ec.mu.Lock()
	total := len(ec.progress)
	ec.mu.Unlock()
	assert.Equal(t, 0, before)
	assert.Equal(t, 6, total)
}

// logsWith waits briefly for log notifications whose data mentions text.
func (ec *edgesClient) logsWith(text string, atLeast int) []*mcp.LoggingMessageParams {
	deadline := time.Now().Add(slack.Of(2 * time.Second))
	for {
		ec.mu.Lock()
		var out []*mcp.LoggingMessageParams
		for _, l := range ec.logs {
			if b, _ := json.Marshal(l.Data); strings.Contains(string(b), text) {
				out = append(out, l)
			}
		}
		ec.mu.Unlock()
		if len(out) >= atLeast || time.Now().After(deadline) {
			return out
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLogRecordsGoToClientsThatSetALevel(t *testing.T) {
	ec, _ := edgesConnect(t, harness.Config{}) // the binary's wiring sends the core's records to clients

	// No level set yet: nothing is sent.
	ec.call(t, "snapshot", map[string]any{"reason": "before"}, nil)
	assert.Empty(t, ec.logsWith("snapshot written", 1))

	require.NoError(t, ec.cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}))
	ec.call(t, "snapshot", map[string]any{"reason": "after"}, nil)
	got := ec.logsWith("snapshot written", 1)
	require.Len(t, got, 1)
	assert.Equal(t, mcp.LoggingLevel("info"), got[0].Level)
	assert.Equal(t, "mcp-sqlite-memory", got[0].Logger)
	b, _ := json.Marshal(got[0].Data)
	assert.Contains(t, string(b), `"reason":"after"`)

	// Above the records' level: nothing more.
	require.NoError(t, ec.cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "error"}))
	ec.call(t, "snapshot", map[string]any{"reason": "quiet"}, nil)
	assert.Len(t, ec.logsWith("snapshot written", 2), 1)
}
