package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// One service serves several client sessions (MCP over HTTP): each call is
// recorded under the session its context names, and a call without one
// under the process's own id.
func TestCallIsRecordedUnderItsSession(t *testing.T) {
	w := secretWorld(t)
	svc := w.svc
	_, err := svc.ReadQuery(ports.WithSession(context.Background(), "A"), domain.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10})
	require.NoError(t, err)
	_, err = svc.WriteQuery(ports.WithSession(context.Background(), "B"), domain.WriteQueryRequest{Query: "INSERT INTO t VALUES (1)"})
	require.NoError(t, err)
	_, err = svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10})
	require.NoError(t, err)
	entries := w.db.Entries()
	require.Len(t, entries, 3)
	assert.True(t, sealed(w))
	assert.Equal(t, "A", entries[0].Session)
	assert.Equal(t, "B", entries[1].Session, "a write's sealed row too")
	assert.Equal(t, "20261201T100000Z-test", entries[2].Session, "no session in the context: the process's")
	assert.Empty(t, ports.SessionFrom(context.Background()))
}
