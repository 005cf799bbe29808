package fake

import (
	"context"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Appends is a Tools that records what each append_event call reached the
// core with: its provenance and its session, as the driving adapter put
// them in the call's context. The MCP adapter's tests of both transports
// use it.
type Appends struct {
	Tools
	mu       sync.Mutex
	got      []domain.Provenance
	sessions []string
}

// AppendEvent records the call's provenance and session, then answers as
// Tools does.
func (a *Appends) AppendEvent(ctx context.Context, r domain.AppendEventRequest) (ports.Result, error) {
	a.mu.Lock()
	a.got, a.sessions = append(a.got, ports.ProvenanceFrom(ctx)), append(a.sessions, ports.SessionFrom(ctx))
	a.mu.Unlock()
	return a.Tools.AppendEvent(ctx, r)
}

// Last returns the provenance and session of the latest append_event
// call; ok is false before the first.
func (a *Appends) Last() (p domain.Provenance, session string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.got) == 0 {
		return p, "", false
	}
	return a.got[len(a.got)-1], a.sessions[len(a.sessions)-1], true
}
