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
	db := &fakeDB{}
	svc := newService(db, nil, domain.DefaultLimits())
	_, err := svc.ReadQuery(ports.WithSession(context.Background(), "A"), ports.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10})
	require.NoError(t, err)
	_, err = svc.WriteQuery(ports.WithSession(context.Background(), "B"), "INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	_, err = svc.ReadQuery(context.Background(), ports.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10})
	require.NoError(t, err)
	require.Len(t, db.recorded, 2)
	require.Len(t, db.sealed, 1)
	assert.Equal(t, "A", db.recorded[0].Session)
	assert.Equal(t, "B", db.sealed[0].Session, "a write's sealed row too")
	assert.Equal(t, "s", db.recorded[1].Session, "no session in the context: the process's")
	assert.Empty(t, ports.SessionFrom(context.Background()))
}
