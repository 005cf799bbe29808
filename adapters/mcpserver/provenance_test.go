package mcpserver_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// provTools records the provenance and session each append_event call
// reached the core with.
type provTools struct {
	stubTools
	mu       sync.Mutex
	got      []domain.Provenance
	sessions []string
}

func (p *provTools) AppendEvent(ctx context.Context, r domain.AppendEventRequest) (ports.Result, error) {
	p.mu.Lock()
	p.got, p.sessions = append(p.got, ports.ProvenanceFrom(ctx)), append(p.sessions, ports.SessionFrom(ctx))
	p.mu.Unlock()
	return p.stubTools.AppendEvent(ctx, r)
}

func (p *provTools) last(t *testing.T) (domain.Provenance, string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NotEmpty(t, p.got)
	return p.got[len(p.got)-1], p.sessions[len(p.sessions)-1]
}

// Every call reaches the core saying where it comes from: the client's
// own name and version and the transport (over HTTP also the session's
// audit id: streamhttp's TestHTTPCallsCarryTheirProvenance).
func TestCallsCarryTheirProvenance(t *testing.T) {
	tools := &provTools{}
	cs := stubConnect(t, tools, mcpserver.Options{Version: "test", Limits: domain.DefaultLimits()})
	_, isErr := stubCall(t, cs, domain.ToolAppendEvent, map[string]any{"content": "x"})
	require.False(t, isErr)
	p, _ := tools.last(t)
	assert.Equal(t, domain.Provenance{Transport: domain.TransportStdio, Client: "stub", ClientVersion: "test"}, p)
}
