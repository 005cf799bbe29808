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

// notYet fails the test when ch already holds a value: what it reports
// must not have happened yet. It looks once and never waits, so it cannot
// fail on a slow machine.
func notYet[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case <-ch:
		require.FailNow(t, what)
	default:
	}
}

// TestPendingWaitThenRunWithTheArrivalDeadline: a call that arrives
// before the core is open waits for it, then runs with its deadline counted
// from its arrival; Drain returns once the waiting call has; after the open
// a call reaches the core with its own context. The test moves on events
// (Wanted closes once the call waits), and checks the deadline by order
// alone: it lies between the call's start and the moment before the open.
func TestPendingWaitThenRunWithTheArrivalDeadline(t *testing.T) {
	t.Parallel()
	const timeout = 5 * time.Second
	p := app.NewPending(timeout)
	fake := &pendingFake{got: make(chan context.Context, 2)}

	arrived := time.Now()
	answered := make(chan string, 1)
	go func() { res, _ := p.ReadQuery(context.Background(), domain.ReadQueryRequest{}); answered <- res.Text }()
	<-p.Wanted()
	notYet(t, answered, "a call was answered before the core was open")
	beforeOpen := time.Now()
	for !time.Now().After(beforeOpen) { // one clock tick: a deadline armed by the open would lie past beforeOpen+timeout
	}
	p.Set(fake, nil)
	ctx := <-fake.got
	dl, ok := ctx.Deadline()
	require.True(t, ok, "a call that waited has a deadline")
	assert.False(t, dl.Before(arrived.Add(timeout)), "the deadline is the call's timeout")
	assert.False(t, dl.After(beforeOpen.Add(timeout)), "counted from arrival, not from the open")
	assert.Equal(t, "ran", <-answered)
	p.Drain()

	own := context.Background()
	_, err := p.ReadQuery(own, domain.ReadQueryRequest{})
	require.NoError(t, err)
	_, ok = (<-fake.got).Deadline()
	assert.False(t, ok, "once open, a call gets its own context")
}

// TestPendingCancelledWhileWaitingStillRuns: a call cancelled while it
// waits is not answered then; it still reaches the core once the core is
// open (which audits it), with its cancelled context.
func TestPendingCancelledWhileWaitingStillRuns(t *testing.T) {
	t.Parallel()
	p := app.NewPending(5 * time.Second)
	fake := &pendingFake{got: make(chan context.Context, 1)}
	cancelled, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() { _, err := p.ReadQuery(cancelled, domain.ReadQueryRequest{}); answered <- err }()
	<-p.Wanted()
	cancel()
	notYet(t, answered, "a cancelled call was answered before the core was open")
	p.Set(fake, nil)
	assert.ErrorIs(t, <-answered, context.Canceled, "the core ran it, with its cancelled context")
	select {
	case ctx := <-fake.got:
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
	default:
		assert.Fail(t, "the cancelled call never reached the core")
	}
	p.Drain()
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
	<-p.Wanted()
	p.Set(nil, boom)
	p.Set(&pendingFake{}, nil) // only the first set counts
	assert.ErrorIs(t, <-done, boom)
	assert.ErrorIs(t, p.Reject(context.Background(), domain.ToolReadQuery, errors.New("bad")), boom)
	p.Drain()
}
