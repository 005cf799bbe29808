package approval_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/approval"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func TestApprovalQueueTablesOnlyWhereUsed(t *testing.T) {
	dir := t.TempDir()
	plain, err := sqlite.Open(context.Background(), filepath.Join(dir, "plain.db"), sqlite.Options{QueryTimeout: time.Second})
	require.NoError(t, err)
	defer plain.Close()
	list, err := approval.New(plain, wallClock{}).List(context.Background(), true, time.Now())
	require.NoError(t, err)
	assert.Empty(t, list, "a database without the queue has no questions")
	var n int
	require.NoError(t, plain.Internal().QueryRowContext(context.Background(), "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'mcp_approval%'").Scan(&n))
	assert.Zero(t, n, "only a server using the queue creates its tables")
}

// A question nobody decides expires, is recorded as expired, and can no
// longer be decided; a decided one cannot be decided again.
func TestApprovalQueueExpiresAndDecidesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	ctx := context.Background()
	server, err := sqlite.Open(ctx, path, sqlite.Options{QueryTimeout: time.Second, ApprovalQueue: true})
	require.NoError(t, err)
	defer server.Close()
	queue := approval.New(server, wallClock{})
	q := domain.Question{Tool: domain.ToolDestructiveQuery, Session: "s1", SQL: "DELETE FROM t", Reason: "r"}

	wait, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	d := queue.Confirm(wait, q)
	cancel()
	assert.Equal(t, domain.OutcomeTimedOut, d.Outcome)
	assert.Equal(t, domain.DecidedByQueue, d.By)
	require.NotZero(t, d.QueueID)
	entry := domain.AuditEntry{TS: domain.FormatTS(time.Now()), Session: "cli", Tool: "approve", OK: true}
	err = queue.Decide(ctx, d.QueueID, true, "cli", time.Now(), entry)
	assert.True(t, errors.Is(err, approval.ErrNotPending), "%v", err)
	assert.ErrorContains(t, err, "already expired")

	// Decided from another store on the same file while it waits.
	cli, err := sqlite.Open(ctx, path, sqlite.Options{QueryTimeout: time.Second})
	require.NoError(t, err)
	defer cli.Close()
	other := approval.New(cli, wallClock{})
	done := make(chan domain.Decision, 1)
	go func() { done <- queue.Confirm(ctx, q) }()
	var id int64
	for deadline := time.Now().Add(slack.Of(10 * time.Second)); id == 0; {
		require.True(t, time.Now().Before(deadline), "the question never appeared")
		time.Sleep(5 * time.Millisecond)
		list, err := other.List(ctx, true, time.Now())
		require.NoError(t, err)
		if len(list) == 1 {
			id = list[0].ID
			assert.Contains(t, list[0].Question, "DELETE FROM t")
		}
	}
	require.NoError(t, other.Decide(ctx, id, false, "cli (me)", time.Now(), entry))
	got := <-done
	assert.Equal(t, domain.OutcomeDeclined, got.Outcome)
	assert.Contains(t, got.Note, "denied by cli (me)")
	err = other.Decide(ctx, id, true, "cli", time.Now(), entry)
	assert.ErrorContains(t, err, "already denied")
	list, err := other.List(ctx, true, time.Now())
	require.NoError(t, err)
	assert.Empty(t, list)
}
