package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// secretWorld is a world whose reads return one secret row and whose
// writes change 3 rows.
func secretWorld(t *testing.T, tune ...func(*domain.Limits)) *world {
	t.Helper()
	w := newWorld(t, tune...)
	w.db.Statements.Columns, w.db.Statements.Rows = []string{"v"}, [][]any{{"secret"}}
	w.db.Statements.Result = domain.WriteResult{RowsAffected: 3}
	return w
}

// sealed reports whether the first write asked the store to seal its row.
func sealed(w *world) bool {
	for _, c := range w.db.Calls() {
		if c.Method == "Write" {
			return c.Request.Audit != nil
		}
	}
	return false
}

func TestReadIsRecordedBeforeItAnswers(t *testing.T) {
	w := secretWorld(t)
	out, err := text(w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10}))
	require.NoError(t, err)
	assert.Contains(t, out, "secret")
	e := w.onlyEntry(t) // the row is stored by the time the answer returns
	assert.True(t, e.OK)
	assert.Equal(t, "read_query", e.Tool)
}

func TestUnrecordedCallReturnsNoData(t *testing.T) {
	for _, kind := range []error{domain.ErrBusy, domain.ErrTimeout} {
		w := secretWorld(t)
		w.db.AuditLog.Err = domain.Errorf(kind, "query_log is out of reach")
		out, err := text(w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10}))
		require.Error(t, err)
		assert.Empty(t, out)
		assert.NotContains(t, err.Error(), "secret")
		assert.Contains(t, err.Error(), "audit row could not be written")
		assert.Contains(t, err.Error(), "query_log is out of reach", "the cause is named")
		assert.ErrorIs(t, err, kind, "the cause's kind is kept")
	}
}

func TestWriteRowIsSealedIntoItsTransaction(t *testing.T) {
	w := secretWorld(t)
	_, err := w.svc.WriteQuery(context.Background(), domain.WriteQueryRequest{Query: "INSERT INTO t VALUES (1)"})
	require.NoError(t, err)
	assert.True(t, sealed(w))
	e := w.onlyEntry(t) // a committed write needs no second row
	require.NotNil(t, e.Rows)
	assert.Equal(t, int64(3), *e.Rows, "the sealed row carries what the statement did")
	assert.True(t, e.OK)
}

func TestFailedWriteIsRecordedSeparately(t *testing.T) {
	w := secretWorld(t)
	w.db.Statements.WriteErr = domain.Errorf(domain.ErrSQLite, "SQLite error: UNIQUE constraint failed")
	_, err := w.svc.WriteQuery(context.Background(), domain.WriteQueryRequest{Query: "INSERT INTO t VALUES (1)"})
	require.Error(t, err)
	e := w.onlyEntry(t)
	assert.False(t, e.OK)
	assert.Equal(t, err.Error(), e.Error)
}

// recordDeadlines makes log remember the deadline of every Record call.
func recordDeadlines(log *fake.AuditLog) *[]time.Time {
	var mu sync.Mutex
	var dls []time.Time
	log.RecordFn = func(ctx context.Context, _ domain.AuditEntry) error {
		dl, _ := ctx.Deadline()
		mu.Lock()
		defer mu.Unlock()
		dls = append(dls, dl)
		return nil
	}
	return &dls
}

// TestFailureRowGetsTimeAfterTheDeadline: a call that used up its deadline
// still gets a moment to record its failure; one that failed on another
// program's lock gets only that moment.
func TestFailureRowGetsTimeAfterTheDeadline(t *testing.T) {
	w := secretWorld(t, func(l *domain.Limits) { l.QueryTimeout = 20 * time.Millisecond })
	w.db.Statements.WriteErr = domain.Errorf(domain.ErrTimeout, "query exceeded")
	deadlines := recordDeadlines(w.db.AuditLog)
	began := time.Now()
	_, err := w.svc.WriteQuery(context.Background(), domain.WriteQueryRequest{Query: "INSERT INTO t VALUES (1)"})
	require.ErrorIs(t, err, domain.ErrTimeout)
	require.Len(t, *deadlines, 1)
	assert.True(t, (*deadlines)[0].After(began.Add(20*time.Millisecond)), "the row may be written after the call's deadline")

	busy := secretWorld(t, func(l *domain.Limits) { l.QueryTimeout = time.Minute })
	busy.db.Statements.WriteErr = domain.Errorf(domain.ErrBusy, "locked by another program")
	deadlines = recordDeadlines(busy.db.AuditLog)
	began = time.Now()
	_, err = busy.svc.WriteQuery(context.Background(), domain.WriteQueryRequest{Query: "INSERT INTO t VALUES (1)"})
	require.ErrorIs(t, err, domain.ErrBusy)
	require.Len(t, *deadlines, 1)
	// By order: the row's deadline is set within the call, so however slow
	// the machine, it lies before the call's start plus the call's minute.
	assert.True(t, (*deadlines)[0].Before(began.Add(time.Minute-time.Second)), "a row that waits for the same lock gets a short grace, not the call's minute")
}

func TestCancelledCallIsStillRecorded(t *testing.T) {
	w := secretWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := w.svc.Reject(ctx, "read_query", domain.Errorf(domain.ErrInvalidArgument, "bad arguments"))
	require.Error(t, err)
	assert.False(t, w.onlyEntry(t).OK)
	assert.False(t, errors.Is(err, context.Canceled))
}
