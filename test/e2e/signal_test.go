package e2e_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sqlite "modernc.org/sqlite"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// Observable signals the tests wait for instead of fixed sleeps: a pause
// long enough on an idle machine is too short on a loaded one, and too long
// everywhere else.

// signalCPUBusy is the CPU time a server must spend, after a call was sent,
// before that call counts as running: an idle server spends none, and
// decoding a call takes well under a millisecond, so 50 ms (5 ticks of
// /proc's clock) can only be the statement being stepped.
const signalCPUBusy = 50 * time.Millisecond

// signalCPUStart reads the CPU time pid has used so far, for
// [signalQueryRunning]. /proc is Linux's: elsewhere the test is skipped,
// in CI it fails.
func signalCPUStart(t *testing.T, pid int) time.Duration {
	t.Helper()
	d, err := e2e.TimeCPU(pid)
	if err != nil {
		if runtime.GOOS != "linux" && os.Getenv("CI") == "" {
			t.Skipf("the running query is observed through /proc: %v", err)
		}
		require.NoError(t, err, "reading the server's CPU time")
	}
	return d
}

// signalQueryRunning waits until the server pid has spent signalCPUBusy of
// CPU time more than since (a [signalCPUStart] reading taken before the
// call was sent): the call's statement is being stepped, so it holds its
// read snapshot. It fails the test after limit (scaled by the load, slack.Of).
func signalQueryRunning(t *testing.T, pid int, since, limit time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool {
		d, err := e2e.TimeCPU(pid)
		return err == nil && d-since >= signalCPUBusy
	}, slack.Of(limit), 5*time.Millisecond, "the server never started running the call")
}

// signalWriteLockTaken waits until some other connection holds the write
// lock of conn's database. conn must not wait for locks (busy timeout 0);
// it holds the lock only for an instant when it gets it. It returns false
// when done is closed first (the call ended without the lock being seen
// taken), and an error when ctx ends first. It only returns errors, so it
// may run on a goroutine of its own.
func signalWriteLockTaken(ctx context.Context, conn *sql.Conn, done <-chan struct{}) (bool, error) {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE")
		switch {
		case err == nil:
			if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
				return false, err
			}
		case signalIsBusy(err):
			return true, nil
		default:
			return false, fmt.Errorf("probing the write lock: %w", err)
		}
		select {
		case <-done:
			return false, nil
		case <-ctx.Done():
			return false, fmt.Errorf("nothing took the write lock: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// signalIsBusy reports whether err is SQLite's "database is locked".
func signalIsBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && strings.HasSuffix(sqlite.ErrorCodeString[se.Code()&0xff], "(SQLITE_BUSY)")
}
