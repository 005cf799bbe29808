package tools_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// slowSnapshots is the real snapshotter, made to take a while first, as a
// large database's snapshot does. It stops early only when ctx ends.
type slowSnapshots struct {
	ports.Snapshotter
	delay time.Duration
}

func (s slowSnapshots) Snapshot(ctx context.Context, reason string) (string, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return "", domain.Errorf(domain.ErrSnapshot, "snapshot cancelled: %v", ctx.Err())
	}
	return s.Snapshotter.Snapshot(ctx, reason)
}

// TestSnapshotLongerThanTheQueryTimeout pins that a snapshot is the
// server's work, not the agent's: one that takes longer than the query
// deadline (a large file) still completes, and the statement after it gets
// a full deadline of its own, so a big database can still be changed.
func TestSnapshotLongerThanTheQueryTimeout(t *testing.T) {
	t.Parallel()
	l := domain.DefaultLimits()
	l.QueryTimeout = 300 * time.Millisecond
	env := harness.New(t, harness.Config{Limits: l, WrapSnapshots: func(s ports.Snapshotter) ports.Snapshotter {
		return slowSnapshots{Snapshotter: s, delay: 3 * l.QueryTimeout}
	}})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE t (a)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1), (2)"})

	out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM t WHERE a = 1", "reason": "slow snapshot"})
	assert.True(t, strings.HasPrefix(out, "ok: 1 rows affected; ") && strings.Contains(out, "; snapshot: "), out)
	out = env.MustCall(t, "snapshot", map[string]any{"reason": "slow"})
	assert.True(t, strings.HasPrefix(out, "ok: snapshot written: "), out)
	// The agent's own statement is still bounded by the deadline.
	assert.Contains(t, env.MustFail(t, "destructive_query", map[string]any{
		"query":  "DELETE FROM t WHERE a IN (SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c))",
		"reason": "runaway"}), "query exceeded 0.3s")
	assert.Equal(t, "a\n2\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT a FROM t"}))
}
