package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// SQLite's heap is one process-wide pool: every connection, the agent's and
// the server's own, allocates from it, outside the Go heap. Left alone it
// grows with whatever a statement holds at once: a row of 150 columns of
// 8 MiB each is 1.2 GB of values, built with doubling buffers (3 GB at the
// peak). LimitHeap caps the pool: an allocation past the hard limit fails
// with SQLITE_NOMEM, the statement ends cleanly, frees what it held, and
// the agent gets [heapError].
// LimitHeap turns SQLite's memory accounting on first (engine.SetHeapLimits),
// which SQLite accepts only before the first database is opened.

// heapLimit is the hard limit set, for messages; 0: none.
var heapLimit atomic.Int64

// LimitHeap caps SQLite's process-wide heap at hard bytes, and asks SQLite
// to shrink its page caches from soft bytes on (sqlite3_soft_heap_limit64:
// nothing fails there, caches recycle pages instead of growing). Call it
// once, before [Open]; hard 0 removes the limits.
func LimitHeap(hard, soft int64) error {
	if hard < 0 || soft < 0 || (hard > 0 && soft > hard) {
		return fmt.Errorf("sqlite.LimitHeap: want 0 <= soft <= hard, got soft %d, hard %d", soft, hard)
	}
	if err := engine.SetHeapLimits(hard, soft); err != nil {
		return err
	}
	heapLimit.Store(hard)
	return nil
}

// heapError is what an agent statement that ran out of SQLite's heap gets:
// what to narrow, and the setting to raise. Nothing was changed (a write
// rolls back).
func heapError() error {
	limit := "the server's limit"
	if n := heapLimit.Load(); n > 0 {
		limit = fmt.Sprintf("the server's limit of %d MiB (shared by every call in flight)", n>>20)
	}
	return domain.Errorf(domain.ErrMemory, "the statement needed more memory than %s and was stopped; nothing was changed. "+
		"SQLite holds every value of a row at once: select fewer or shorter columns (substr(col, 1, 1000), length(col)), "+
		"fewer rows per aggregate or sort; if other large calls were running, retry when they are done; or raise --max-sqlite-heap-bytes", limit)
}

// ownWorkRetries and ownWorkPause bound how long the server's own writes
// (audit rows, events, checkpoints) wait for room in SQLite's heap. The
// heap is shared, so one of them can meet the limit while an agent
// statement holds nearly all of it; that statement then fails and frees
// what it held within milliseconds, so a short retry gets through.
const (
	ownWorkRetries = 10
	ownWorkPause   = 20 * time.Millisecond
)

// retryNoMem runs fn, the server's own work, again while it fails for
// SQLite's heap limit, a bounded number of times.
func retryNoMem(ctx context.Context, fn func() error) error {
	err := fn()
	for i := 0; i < ownWorkRetries && isNoMem(err) && ctx.Err() == nil; i++ {
		time.Sleep(ownWorkPause)
		err = fn()
	}
	return err
}

// isNoMem reports whether err is SQLITE_NOMEM, from the C API or the driver.
func isNoMem(err error) bool {
	if code, ok := primaryCode(err); ok {
		return code == engine.CodeNoMem
	}
	var de *domain.Error
	return errors.As(err, &de) && errors.Is(de, domain.ErrMemory)
}
