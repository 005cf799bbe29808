package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestHeapErrorSaysWhatToNarrowAndWhichSetting(t *testing.T) {
	t.Parallel()
	err := heapError()
	require.ErrorIs(t, err, domain.ErrMemory)
	for _, want := range []string{"fewer or shorter columns", "substr(", "--max-sqlite-heap-bytes", "nothing was changed"} {
		assert.Contains(t, err.Error(), want)
	}
	s := &Store{wording: wording{name: "mem.db"}}
	assert.ErrorIs(t, s.translate(context.Background(), nil, &engine.Error{Code: engine.CodeNoMem, Msg: "out of memory"}), domain.ErrMemory,
		"SQLITE_NOMEM from an agent statement is the memory error, not a bare SQLite error")
}

// TestRetryNoMemRetriesOnlyTheHeapLimitAndOnlyBriefly: the server's own
// writes wait out an agent statement that filled SQLite's heap, but never
// retry any other failure, nor forever.
func TestRetryNoMemRetriesOnlyTheHeapLimitAndOnlyBriefly(t *testing.T) {
	t.Parallel()
	nomem := &engine.Error{Code: engine.CodeNoMem, Msg: "out of memory"}
	calls := 0
	err := retryNoMem(context.Background(), func() error {
		if calls++; calls < 3 {
			return nomem
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, calls, "retried until the heap had room")

	calls = 0
	other := errors.New("disk I/O error")
	assert.Equal(t, other, retryNoMem(context.Background(), func() error { calls++; return other }))
	assert.Equal(t, 1, calls, "other errors are not retried")

	calls = 0
	assert.ErrorIs(t, retryNoMem(context.Background(), func() error { calls++; return heapError() }), domain.ErrMemory)
	assert.Equal(t, ownWorkRetries+1, calls, "bounded")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	_ = retryNoMem(ctx, func() error { calls++; return nomem })
	assert.Equal(t, 1, calls, "a cancelled call does not wait")
}
