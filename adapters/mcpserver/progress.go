package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// progress sends the core's progress reports of one tool call to the client
// as notifications/progress under the token the client sent in the call's
// _meta.progressToken. Values that do not grow are dropped (the spec wants
// them increasing), and so is everything once the call has answered.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any

	mu   sync.Mutex
	last float64
	sent bool
	done bool
}

var _ ports.Progress = (*progress)(nil)

// withProgress puts a [progress] in ctx when the client sent a token; the
// returned finish stops it before the call's answer goes out.
func withProgress(ctx context.Context, req *mcp.CallToolRequest) (context.Context, func()) {
	if req == nil || req.Session == nil || req.Params == nil {
		return ctx, func() {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return ctx, func() {}
	}
	p := &progress{ctx: ctx, ss: req.Session, token: token}
	return ports.WithProgress(ctx, p), p.finish
}

// Report sends one notification.
func (p *progress) Report(done, total float64, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || (p.sent && done <= p.last) {
		return
	}
	p.last, p.sent = done, true
	_ = p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: done, Total: total, Message: message})
}

func (p *progress) finish() {
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
}
