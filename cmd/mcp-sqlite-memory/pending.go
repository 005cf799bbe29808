package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// pendingTools serves the tools of a core that is still being opened: the
// server answers initialize and tools/list (which depend only on the
// settings) while the database opens, and a tool call that arrives
// meanwhile waits for it. Its deadline counts from its arrival, as it
// would with the database already open; it is still run (and so audited)
// once the core is there, even when it was cancelled or timed out while
// waiting: no call is answered without its audit row. If the open fails the
// process exits with the open's error; the waiting calls get that error.
type pendingTools struct {
	ready chan struct{}
	// wanted is closed by the first call that has to wait: the open,
	// held back while the handshake is answered, should start now.
	wanted     chan struct{}
	wantedOnce sync.Once
	timeout    time.Duration // the calls' deadline (--query-timeout)
	open       atomic.Bool   // set: ready is closed
	mu         sync.Mutex    // orders set against the count of waiting calls
	waiting    sync.WaitGroup
	tools      ports.Tools // set before ready is closed
	err        error
}

var _ ports.Tools = (*pendingTools)(nil)

// newPendingTools returns tools that wait for [pendingTools.set]; timeout
// is the calls' deadline.
func newPendingTools(timeout time.Duration) *pendingTools {
	return &pendingTools{ready: make(chan struct{}), wanted: make(chan struct{}), timeout: timeout}
}

// set hands over the opened core, or the error that ended the open; only
// the first call counts.
func (p *pendingTools) set(tools ports.Tools, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open.Load() {
		return
	}
	p.tools, p.err = tools, err
	p.open.Store(true)
	close(p.ready)
}

// drain waits until every call that waited for the core has returned: the
// server closes the store only after them. Call it after set.
func (p *pendingTools) drain() { p.waiting.Wait() }

// wait returns the core once it is open, and the context to call it with:
// ctx itself when the core was already open, else ctx with the call's
// deadline counted from its arrival. done releases that deadline.
func (p *pendingTools) wait(ctx context.Context) (t ports.Tools, call context.Context, done func(), err error) {
	if p.open.Load() {
		return p.tools, ctx, func() {}, p.err
	}
	p.mu.Lock()
	if p.open.Load() {
		p.mu.Unlock()
		return p.tools, ctx, func() {}, p.err
	}
	p.waiting.Add(1)
	p.mu.Unlock()
	call, cancel := context.WithTimeout(ctx, p.timeout)
	p.wantedOnce.Do(func() { close(p.wanted) })
	<-p.ready
	return p.tools, call, func() { cancel(); p.waiting.Done() }, p.err
}

// ReadQuery waits for the core, then runs the call.
func (p *pendingTools) ReadQuery(ctx context.Context, r ports.ReadQueryRequest) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.ReadQuery(ctx, r)
}

// WriteQuery waits for the core, then runs the call.
func (p *pendingTools) WriteQuery(ctx context.Context, query string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.WriteQuery(ctx, query)
}

// DestructiveQuery waits for the core, then runs the call.
func (p *pendingTools) DestructiveQuery(ctx context.Context, query, reason string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.DestructiveQuery(ctx, query, reason)
}

// ListTables waits for the core, then runs the call.
func (p *pendingTools) ListTables(ctx context.Context, includeRowCounts bool) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.ListTables(ctx, includeRowCounts)
}

// DescribeTable waits for the core, then runs the call.
func (p *pendingTools) DescribeTable(ctx context.Context, table string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.DescribeTable(ctx, table)
}

// GetSchema waits for the core, then runs the call.
func (p *pendingTools) GetSchema(ctx context.Context, includeSystem bool) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.GetSchema(ctx, includeSystem)
}

// CreateView waits for the core, then runs the call.
func (p *pendingTools) CreateView(ctx context.Context, r ports.CreateViewRequest) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.CreateView(ctx, r)
}

// AppendEvent waits for the core, then runs the call.
func (p *pendingTools) AppendEvent(ctx context.Context, content, kind string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.AppendEvent(ctx, content, kind)
}

// RetractEvent waits for the core, then runs the call.
func (p *pendingTools) RetractEvent(ctx context.Context, r ports.RetractEventRequest) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.RetractEvent(ctx, r)
}

// VerifyChain waits for the core, then runs the call.
func (p *pendingTools) VerifyChain(ctx context.Context, expectedHead string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.VerifyChain(ctx, expectedHead)
}

// Checkpoint waits for the core, then runs the call.
func (p *pendingTools) Checkpoint(ctx context.Context, summary string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.Checkpoint(ctx, summary)
}

// GetResumeContext waits for the core, then runs the call.
func (p *pendingTools) GetResumeContext(ctx context.Context, r ports.ResumeRequest) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.GetResumeContext(ctx, r)
}

// SearchMemory waits for the core, then runs the call.
func (p *pendingTools) SearchMemory(ctx context.Context, r ports.SearchMemoryRequest) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.SearchMemory(ctx, r)
}

// ReadResource waits for the core, then reads the resource.
func (p *pendingTools) ReadResource(ctx context.Context, uri string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.ReadResource(ctx, uri)
}

// GetPrompt waits for the core, then renders the prompt.
func (p *pendingTools) GetPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.GetPrompt(ctx, name, args)
}

// Complete waits for the core, then completes the argument.
func (p *pendingTools) Complete(ctx context.Context, prompt, argument, value string) (ports.Completion, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return ports.Completion{}, err
	}
	return t.Complete(ctx, prompt, argument, value)
}

// SearchText waits for the core, then runs the call.
func (p *pendingTools) SearchText(ctx context.Context, r ports.SearchTextRequest) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.SearchText(ctx, r)
}

// Snapshot waits for the core, then runs the call.
func (p *pendingTools) Snapshot(ctx context.Context, reason string) (string, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return "", err
	}
	return t.Snapshot(ctx, reason)
}

// Reject waits for the core, then audits the refused call.
func (p *pendingTools) Reject(ctx context.Context, tool string, rejected error) error {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		return err
	}
	return t.Reject(ctx, tool, rejected)
}
