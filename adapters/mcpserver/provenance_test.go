package mcpserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
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

// Every call reaches the core saying where it comes from: the client's
// own name and version and the transport (over HTTP also the session's
// audit id: streamhttp's TestHTTPCallsCarryTheirProvenance).
func TestCallsCarryTheirProvenance(t *testing.T) {
	tools := &fake.Appends{}
	cs := stubConnect(t, tools, mcpserver.Options{Version: "test", Limits: domain.DefaultLimits()})
	_, isErr := stubCall(t, cs, domain.ToolAppendEvent, map[string]any{"content": "x"})
	require.False(t, isErr)
	p, _ := last(t, tools)
	assert.Equal(t, domain.Provenance{Transport: domain.TransportStdio, Client: "stub", ClientVersion: "test"}, p)
}
