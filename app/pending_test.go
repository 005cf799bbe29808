package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// pendingFake is a ports.Tools whose ReadQuery reports the context it got;
// the other tools are not called here.
type pendingFake struct {
	ports.Tools
	got chan context.Context
}

func (f *pendingFake) ReadQuery(ctx context.Context, _ domain.ReadQueryRequest) (ports.Result, error) {
	f.got <- ctx
	return ports.Result{Text: "ran"}, ctx.Err()
}

// TestPendingWaitThenRunWithTheArrivalDeadline: a call that arrives
// before the core is open waits for it, then runs with its deadline counted
// from its arrival; a call cancelled while waiting still reaches the core
// (which audits it); Drain waits for the waiting calls; after the open a
// call reaches the core with its own context.
func TestPendingWaitThenRunWithTheArrivalDeadline(t *testing.T) {
	t.Parallel()
	const timeout = 5 * time.Second
	p := app.NewPending(timeout)
	fake := &pendingFake{got: make(chan context.Context, 3)}

	arrived := time.Now()
	answered := make(chan string, 2)
	go func() { res, _ := p.ReadQuery(context.Background(), domain.ReadQueryRequest{}); answered <- res.Text }()
	cancelled, cancel := context.WithCancel(context.Background())
	go func() { res, _ := p.ReadQuery(cancelled, domain.ReadQueryRequest{}); answered <- res.Text }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case <-answered:
		require.FailNow(t, "a call ran before the core was open")
	case <-time.After(50 * time.Millisecond):
	}
	p.Set(fake, nil)
	for range 2 {
		ctx := <-fake.got
		dl, ok := ctx.Deadline()
		require.True(t, ok, "a call that waited has a deadline")
		assert.WithinDuration(t, arrived.Add(timeout), dl, time.Second, "counted from arrival, not from the open")
		assert.Equal(t, "ran", <-answered)
	}
	p.Drain()

	own := context.Background()
	_, err := p.ReadQuery(own, domain.ReadQueryRequest{})
	require.NoError(t, err)
	_, ok := (<-fake.got).Deadline()
	assert.False(t, ok, "once open, a call gets its own context")
}

// TestPendingFailedOpen: when the open fails, waiting and later calls
// get its error and nothing runs.
func TestPendingFailedOpen(t *testing.T) {
	t.Parallel()
	p := app.NewPending(time.Second)
	boom := errors.New("mem.db is not a usable SQLite database")
	done := make(chan error, 1)
	go func() {
		_, err := p.AppendEvent(context.Background(), domain.AppendEventRequest{Content: "x"})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	p.Set(nil, boom)
	p.Set(&pendingFake{}, nil) // only the first set counts
	assert.ErrorIs(t, <-done, boom)
	assert.ErrorIs(t, p.Reject(context.Background(), domain.ToolReadQuery, errors.New("bad")), boom)
	p.Drain()
}
