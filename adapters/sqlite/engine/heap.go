package engine

import (
	"errors"
	"sync"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

var (
	memstatusOnce sync.Once
	memstatusErr  error
)

// ErrHeapTooLate is SetHeapLimits called after SQLite has initialized.
var ErrHeapTooLate = errors.New("sqlite.LimitHeap must be called before the first database is opened")

// SetHeapLimits sets SQLite's process-wide hard and soft heap limits
// (sqlite3_hard_heap_limit64, sqlite3_soft_heap_limit64). modernc.org/sqlite
// is built with SQLITE_DEFAULT_MEMSTATUS=0, which turns SQLite's memory
// accounting off, and with it both limits (they are enforced only while
// counting): the first call turns the accounting back on with
// sqlite3_config(SQLITE_CONFIG_MEMSTATUS), which SQLite accepts only before
// it initializes, that is before the first database is opened.
func SetHeapLimits(hard, soft int64) error {
	tls := libc.NewTLS()
	defer tls.Close()
	memstatusOnce.Do(func() {
		va := libc.Xmalloc(tls, 8)
		if va == 0 {
			memstatusErr = errors.New("sqlite.LimitHeap: out of memory")
			return
		}
		defer libc.Xfree(tls, va)
		if rc := lib.Xsqlite3_config(tls, lib.SQLITE_CONFIG_MEMSTATUS, libc.VaList(va, int32(1))); rc != lib.SQLITE_OK {
			memstatusErr = ErrHeapTooLate
		}
	})
	if memstatusErr != nil {
		return memstatusErr
	}
	lib.Xsqlite3_hard_heap_limit64(tls, hard)
	lib.Xsqlite3_soft_heap_limit64(tls, soft)
	return nil
}
