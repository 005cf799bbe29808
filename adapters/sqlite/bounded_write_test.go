package sqlite_test

import (
	"context"
	"database/sql/driver"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	msqlite "modernc.org/sqlite"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// timeSleepStep is a test-only function that spends its time inside one VM
// step and never looks at the interrupt: the shape of any single-step cost
// the deadline cannot cut short. It is registered process-wide, for
// connections opened afterwards.
func init() {
	msqlite.MustRegisterScalarFunction("time_sleep_step", 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		ms, _ := args[0].(int64)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return ms, nil
	})
}

// A write whose statement finishes only after the deadline (SQLite never
// saw the interrupt) must still commit nothing, and say it timed out.
func TestWritePastTheDeadlineCommitsNothing(t *testing.T) {
	s := mustOpen(t)
	mustWrite(t, s, "CREATE TABLE t (x INTEGER)")
	for _, tier := range []domain.Tier{domain.TierWrite, domain.TierDestructive} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := s.Write(ctx, domain.WriteRequest{Tier: tier, SQL: "INSERT INTO t VALUES (time_sleep_step(400))"},
			func([]string) {}, func([]any) bool { return true })
		cancel()
		assert.ErrorIs(t, err, domain.ErrTimeout, tier)
		_, rows, err := readAll(t, s, "SELECT count(*) FROM t")
		require.NoError(t, err)
		assert.Equal(t, [][]any{{int64(0)}}, rows, "nothing committed (%v)", tier)
	}
	mustWrite(t, s, "INSERT INTO t VALUES (1)")
	_, rows, err := readAll(t, s, "SELECT count(*) FROM t")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(1)}}, rows, "the next write works")
}
