package app

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Pending is the inbound port of a core that is still being opened: the
// server answers initialize and tools/list (which depend only on the
// settings) while the database opens, and a call that arrives meanwhile
// waits for it (docs/decisions.md#start-up). Its deadline counts from its
// arrival, as it would with the database already open; it is still run
// (and so audited) once the core is there, even when it was cancelled or
// timed out while waiting: no call is answered without its audit row. If
// the open fails, the waiting calls and every later one get its error.
type Pending struct {
	ready chan struct{}
	// wanted is closed by the first call that has to wait: the open,
	// held back while the handshake is answered, should start now.
	wanted     chan struct{}
	wantedOnce sync.Once
	timeout    time.Duration // the calls' deadline (--query-timeout)
	open       atomic.Bool   // set: ready is closed
	mu         sync.Mutex    // orders Set against the count of waiting calls
	waiting    sync.WaitGroup
	tools      ports.Tools // set before ready is closed
	err        error
}

var _ ports.Tools = (*Pending)(nil)

// NewPending returns tools that wait for [Pending.Set]; timeout is the
// calls' deadline.
func NewPending(timeout time.Duration) *Pending {
	return &Pending{ready: make(chan struct{}), wanted: make(chan struct{}), timeout: timeout}
}

// Set hands over the opened core, or the error that ended the open; only
// the first call counts.
func (p *Pending) Set(tools ports.Tools, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open.Load() {
		return
	}
	p.tools, p.err = tools, err
	p.open.Store(true)
	close(p.ready)
}

// Wanted is closed once a call waits for the core, its deadline already
// counting from its arrival.
func (p *Pending) Wanted() <-chan struct{} { return p.wanted }

// Drain waits until every call that waited for the core has returned: the
// server closes the store only after them. Call it after Set.
func (p *Pending) Drain() { p.waiting.Wait() }

// wait returns the core once it is open, and the context to call it with:
// ctx itself when the core was already open, else ctx with the call's
// deadline counted from its arrival. done releases that deadline.
func (p *Pending) wait(ctx context.Context) (t ports.Tools, call context.Context, done func(), err error) {
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

// forward waits for the core, then calls method on it with r.
func forward[R, T any](ctx context.Context, p *Pending, r R, method func(ports.Tools, context.Context, R) (T, error)) (T, error) {
	t, ctx, done, err := p.wait(ctx)
	defer done()
	if err != nil {
		var zero T
		return zero, err
	}
	return method(t, ctx, r)
}

// ReadQuery waits for the core, then runs the call.
func (p *Pending) ReadQuery(ctx context.Context, r domain.ReadQueryRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.ReadQuery)
}

// WriteQuery waits for the core, then runs the call.
func (p *Pending) WriteQuery(ctx context.Context, r domain.WriteQueryRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.WriteQuery)
}

// DestructiveQuery waits for the core, then runs the call.
func (p *Pending) DestructiveQuery(ctx context.Context, r domain.DestructiveQueryRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.DestructiveQuery)
}

// ListTables waits for the core, then runs the call.
func (p *Pending) ListTables(ctx context.Context, r domain.ListTablesRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.ListTables)
}

// DescribeTable waits for the core, then runs the call.
func (p *Pending) DescribeTable(ctx context.Context, r domain.DescribeTableRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.DescribeTable)
}

// GetSchema waits for the core, then runs the call.
func (p *Pending) GetSchema(ctx context.Context, r domain.GetSchemaRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.GetSchema)
}

// CreateView waits for the core, then runs the call.
func (p *Pending) CreateView(ctx context.Context, r domain.CreateViewRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.CreateView)
}

// AppendEvent waits for the core, then runs the call.
func (p *Pending) AppendEvent(ctx context.Context, r domain.AppendEventRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.AppendEvent)
}

// RetractEvent waits for the core, then runs the call.
func (p *Pending) RetractEvent(ctx context.Context, r domain.RetractEventRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.RetractEvent)
}

// VerifyChain waits for the core, then runs the call.
func (p *Pending) VerifyChain(ctx context.Context, r domain.VerifyChainRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.VerifyChain)
}

// Checkpoint waits for the core, then runs the call.
func (p *Pending) Checkpoint(ctx context.Context, r domain.CheckpointRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.Checkpoint)
}

// GetResumeContext waits for the core, then runs the call.
func (p *Pending) GetResumeContext(ctx context.Context, r domain.GetResumeContextRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.GetResumeContext)
}

// SearchMemory waits for the core, then runs the call.
func (p *Pending) SearchMemory(ctx context.Context, r domain.SearchMemoryRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.SearchMemory)
}

// SearchText waits for the core, then runs the call.
func (p *Pending) SearchText(ctx context.Context, r domain.SearchTextRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.SearchText)
}

// Snapshot waits for the core, then runs the call.
func (p *Pending) Snapshot(ctx context.Context, r domain.SnapshotRequest) (ports.Result, error) {
	return forward(ctx, p, r, ports.Tools.Snapshot)
}

// ReadResource waits for the core, then reads the resource.
func (p *Pending) ReadResource(ctx context.Context, uri string) (string, error) {
	return forward(ctx, p, uri, ports.Tools.ReadResource)
}

// GetPrompt waits for the core, then renders the prompt.
func (p *Pending) GetPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	return forward(ctx, p, args, func(t ports.Tools, ctx context.Context, args map[string]string) (string, error) {
		return t.GetPrompt(ctx, name, args)
	})
}

// Complete waits for the core, then completes the argument.
func (p *Pending) Complete(ctx context.Context, prompt, argument, value string) (ports.Completion, error) {
	return forward(ctx, p, value, func(t ports.Tools, ctx context.Context, value string) (ports.Completion, error) {
		return t.Complete(ctx, prompt, argument, value)
	})
}

// Reject waits for the core, then audits the refused call.
func (p *Pending) Reject(ctx context.Context, tool string, rejected error) error {
	_, err := forward(ctx, p, rejected, func(t ports.Tools, ctx context.Context, rejected error) (struct{}, error) {
		return struct{}{}, t.Reject(ctx, tool, rejected)
	})
	return err
}
