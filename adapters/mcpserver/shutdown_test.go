package mcpserver_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// waitingTools is stubTools whose read_query runs until its context ends
// and answers with that context's error: a query that would run until its
// timeout.
type waitingTools struct {
	stubTools
	started chan struct{}
}

func (w *waitingTools) ReadQuery(ctx context.Context, _ domain.ReadQueryRequest) (ports.Result, error) {
	w.started <- struct{}{}
	<-ctx.Done()
	return ports.Result{}, ctx.Err()
}

// TestShutdownCancelsCallsInFlightAndLater: Shutdown ends the context of
// the call running, and of every call after it, so the SDK's wait for
// running handlers ends.
func TestShutdownCancelsCallsInFlightAndLater(t *testing.T) {
	tools := &waitingTools{started: make(chan struct{}, 1)}
	server := mcpserver.New(tools, mcpserver.Options{Limits: domain.DefaultLimits()})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stub", Version: "test"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })

	answered := make(chan string, 1)
	call := func(q string) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: domain.ToolReadQuery, Arguments: map[string]any{"query": q}})
		if err != nil {
			answered <- err.Error()
			return
		}
		answered <- res.Content[0].(*mcp.TextContent).Text
	}
	go call("SELECT 1")
	<-tools.started
	server.Shutdown()
	assert.Equal(t, context.Canceled.Error(), <-answered, "the call in flight ends with Shutdown")

	go call("SELECT 2")
	<-tools.started
	assert.Equal(t, context.Canceled.Error(), <-answered, "a call after Shutdown ends too")
}
