package contract

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// AuditSinkUnderTest is one audit sink and a way to see, from outside it,
// which entries it has durably stored (committed rows, written lines).
type AuditSinkUnderTest struct {
	Sink ports.AuditSink
	// Stored reports how many stored entries have exactly this query.
	Stored func(t *testing.T, query string) int
}

// TestAuditSink checks what app relies on when it withholds an answer until
// its audit entry is stored: once Record returns nil the entry is stored,
// exactly once, also when many calls record at the same time.
func TestAuditSink(t *testing.T, open func(t *testing.T) AuditSinkUnderTest) {
	entry := func(q string) domain.AuditEntry {
		return domain.AuditEntry{TS: "2026-12-01T10:00:00.000Z", Session: "20261201T100000Z-cafe", Tool: "read_query", Query: &q, OK: true}
	}
	t.Run("stored when Record returns", func(t *testing.T) {
		u := open(t)
		for i := range 5 {
			q := fmt.Sprintf("SELECT %d -- serial", i)
			require.NoError(t, u.Sink.Record(context.Background(), entry(q)))
			assert.Equal(t, 1, u.Stored(t, q), "entry %d is stored once Record returns", i)
		}
	})
	t.Run("a failed Record stores nothing, so its retry stores once", func(t *testing.T) {
		// app writes the row of a call whose Record failed again later
		// (app/owed.go): that is only sound if an error means not stored.
		u := open(t)
		q := "SELECT 1 -- retried"
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		if err := u.Sink.Record(ctx, entry(q)); err != nil {
			assert.Equal(t, 0, u.Stored(t, q), "Record failed (%v), so nothing is stored", err)
			require.NoError(t, u.Sink.Record(context.Background(), entry(q)))
		}
		assert.Equal(t, 1, u.Stored(t, q))
	})
	t.Run("overlapping records each stored once", func(t *testing.T) {
		u := open(t)
		const n = 50
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				q := fmt.Sprintf("SELECT %d -- overlapping", i)
				if assert.NoError(t, u.Sink.Record(context.Background(), entry(q))) {
					assert.Equal(t, 1, u.Stored(t, q))
				}
			})
		}
		wg.Wait()
	})
}
