package streamhttp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/streamhttp"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// last is the provenance and session of the latest append_event call.
func last(t *testing.T, tools *fake.Appends) (domain.Provenance, string) {
	t.Helper()
	p, session, ok := tools.Last()
	require.True(t, ok, "no append_event reached the core")
	return p, session
}

// Over HTTP, of both protocol eras, a call reaches the core with the
// client's own name and version, the transport and the session's audit
// id, never the Mcp-Session-Id the client holds.
func TestHTTPCallsCarryTheirProvenance(t *testing.T) {
	tools := &fake.Appends{}
	url := serveHTTP(t, tools, streamhttp.Options{})
	for _, era := range []string{"2025-11-25", ""} {
		cs := connectHTTP(t, url, "agent-"+era, era, nil)
		_, isErr := stubCall(t, cs, domain.ToolAppendEvent, map[string]any{"content": "x"})
		require.False(t, isErr)
		p, session := last(t, tools)
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
