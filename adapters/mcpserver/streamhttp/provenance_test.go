package streamhttp_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/streamhttp"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// provTools records the provenance and session each append_event call
// reached the core with.
type provTools struct {
	fake.Tools
	mu       sync.Mutex
	got      []domain.Provenance
	sessions []string
}

func (p *provTools) AppendEvent(ctx context.Context, r domain.AppendEventRequest) (ports.Result, error) {
	p.mu.Lock()
	p.got, p.sessions = append(p.got, ports.ProvenanceFrom(ctx)), append(p.sessions, ports.SessionFrom(ctx))
	p.mu.Unlock()
	return p.Tools.AppendEvent(ctx, r)
}

func (p *provTools) last(t *testing.T) (domain.Provenance, string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NotEmpty(t, p.got)
	return p.got[len(p.got)-1], p.sessions[len(p.sessions)-1]
}

// Over HTTP, of both protocol eras, a call reaches the core with the
// client's own name and version, the transport and the session's audit
// id, never the Mcp-Session-Id the client holds.
func TestHTTPCallsCarryTheirProvenance(t *testing.T) {
	tools := &provTools{}
	url := serveHTTP(t, tools, streamhttp.Options{})
	for _, era := range []string{"2025-11-25", ""} {
		cs := connectHTTP(t, url, "agent-"+era, era, nil)
		_, isErr := stubCall(t, cs, domain.ToolAppendEvent, map[string]any{"content": "x"})
		require.False(t, isErr)
		p, session := tools.last(t)
		assert.Equal(t, domain.TransportHTTP, p.Transport, era)
		assert.Equal(t, "agent-"+era, p.Client, era)
		assert.Equal(t, "1.0", p.ClientVersion, era)
		assert.Equal(t, session, p.HTTPSession, "%s: the audit session id", era)
		assert.NotEmpty(t, p.HTTPSession, era)
		if cs.ID() != "" {
			assert.NotEqual(t, cs.ID(), p.HTTPSession, "the Mcp-Session-Id is never stored")
		}
	}
}
