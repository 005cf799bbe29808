package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// fakeDB is a hand-written store: reads return one secret row, writes
// succeed or fail as told and call the request's audit function the way a
// real store does just before COMMIT. Ports it does not fake are left nil
// (calling them panics). It is also an audit sink, so the service treats
// it as the database its rows go to.
type fakeDB struct {
	ports.SchemaReader
	ports.ViewWriter
	ports.CandidateSource
	ports.MemoryStore

	mu        sync.Mutex
	writeErr  error
	sealed    []domain.AuditEntry // rows stored in a write's transaction
	recorded  []domain.AuditEntry // rows stored by Record
	recordErr error
	deadlines []time.Time // the deadline Record got each time
}

func (f *fakeDB) Read(_ context.Context, _ string, columns func([]string), row ports.RowFunc) error {
	columns([]string{"v"})
	row([]any{"secret"})
	return nil
}

func (f *fakeDB) Write(_ context.Context, req domain.WriteRequest, _ func([]string), _ ports.RowFunc) (domain.WriteResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writeErr != nil {
		return domain.WriteResult{}, f.writeErr
	}
	res := domain.WriteResult{RowsAffected: 3}
	if req.Audit != nil {
		f.sealed = append(f.sealed, req.Audit(res))
	}
	return res, nil
}

func (f *fakeDB) Compile(context.Context, domain.Tier, string) (domain.Compiled, error) {
	return domain.Compiled{}, nil
}

func (f *fakeDB) Record(ctx context.Context, e domain.AuditEntry) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	dl, _ := ctx.Deadline()
	f.deadlines = append(f.deadlines, dl)
	if f.recordErr != nil {
		return f.recordErr
	}
	f.recorded = append(f.recorded, e)
	return nil
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// otherSink is an audit sink that is not the database.
type otherSink struct{ fakeDB }

func newService(db *fakeDB, sink ports.AuditSink, limits domain.Limits) *app.Service {
	if sink == nil {
		sink = db
	}
	return app.New(app.Deps{Statements: db, Schema: db, Views: db, Candidates: db, Memory: db, Audit: sink, Clock: wallClock{}}, app.Options{Limits: limits, Session: "s"})
}

func TestReadIsRecordedBeforeItAnswers(t *testing.T) {
	db := &fakeDB{}
	out, err := newService(db, nil, domain.DefaultLimits()).ReadQuery(context.Background(), ports.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10})
	require.NoError(t, err)
	assert.Contains(t, out, "secret")
	require.Len(t, db.recorded, 1, "the row is stored by the time the answer returns")
	assert.True(t, db.recorded[0].OK)
	assert.Equal(t, "read_query", db.recorded[0].Tool)
}

func TestUnrecordedCallReturnsNoData(t *testing.T) {
	for _, kind := range []error{domain.ErrBusy, domain.ErrTimeout} {
		db := &fakeDB{recordErr: domain.Errorf(kind, "query_log is out of reach")}
		out, err := newService(db, nil, domain.DefaultLimits()).ReadQuery(context.Background(), ports.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 10})
		require.Error(t, err)
		assert.Empty(t, out)
		assert.NotContains(t, err.Error(), "secret")
		assert.Contains(t, err.Error(), "audit row could not be written")
		assert.Contains(t, err.Error(), "query_log is out of reach", "the cause is named")
		assert.ErrorIs(t, err, kind, "the cause's kind is kept")
	}
}

func TestWriteRowIsSealedIntoItsTransaction(t *testing.T) {
	db := &fakeDB{}
	_, err := newService(db, nil, domain.DefaultLimits()).WriteQuery(context.Background(), "INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	require.Len(t, db.sealed, 1)
	assert.Empty(t, db.recorded, "a committed write needs no second row")
	require.NotNil(t, db.sealed[0].Rows)
	assert.Equal(t, int64(3), *db.sealed[0].Rows, "the sealed row carries what the statement did")
	assert.True(t, db.sealed[0].OK)
}

func TestFailedWriteIsRecordedSeparately(t *testing.T) {
	db := &fakeDB{writeErr: domain.Errorf(domain.ErrSQLite, "SQLite error: UNIQUE constraint failed")}
	_, err := newService(db, nil, domain.DefaultLimits()).WriteQuery(context.Background(), "INSERT INTO t VALUES (1)")
	require.Error(t, err)
	assert.Empty(t, db.sealed)
	require.Len(t, db.recorded, 1)
	assert.False(t, db.recorded[0].OK)
	assert.Equal(t, err.Error(), db.recorded[0].Error)
}

func TestWriteWithAnotherSinkIsRecordedAfterIt(t *testing.T) {
	db, sink := &fakeDB{}, &otherSink{}
	_, err := newService(db, sink, domain.DefaultLimits()).WriteQuery(context.Background(), "INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	assert.Empty(t, db.sealed, "the database is not the sink: nothing goes into its transaction")
	require.Len(t, sink.recorded, 1)
	assert.True(t, sink.recorded[0].OK)
}

// TestFailureRowGetsTimeAfterTheDeadline: a call that used up its deadline
// still gets a moment to record its failure; one that failed on another
// program's lock gets only that moment.
func TestFailureRowGetsTimeAfterTheDeadline(t *testing.T) {
	limits := domain.DefaultLimits()
	limits.QueryTimeout = 20 * time.Millisecond
	db := &fakeDB{writeErr: domain.Errorf(domain.ErrTimeout, "query exceeded")}
	began := time.Now()
	_, err := newService(db, nil, limits).WriteQuery(context.Background(), "INSERT INTO t VALUES (1)")
	require.ErrorIs(t, err, domain.ErrTimeout)
	require.Len(t, db.deadlines, 1)
	assert.True(t, db.deadlines[0].After(began.Add(limits.QueryTimeout)), "the row may be written after the call's deadline")

	limits.QueryTimeout = time.Minute
	busy := &fakeDB{writeErr: domain.Errorf(domain.ErrBusy, "locked by another program")}
	_, err = newService(busy, nil, limits).WriteQuery(context.Background(), "INSERT INTO t VALUES (1)")
	require.ErrorIs(t, err, domain.ErrBusy)
	require.Len(t, busy.deadlines, 1)
	assert.Less(t, time.Until(busy.deadlines[0]), 5*time.Second, "a row that waits for the same lock gets a short grace, not the call's minute")
}

func TestCancelledCallIsStillRecorded(t *testing.T) {
	db := &fakeDB{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := newService(db, nil, domain.DefaultLimits()).Reject(ctx, "read_query", domain.Errorf(domain.ErrInvalidArgument, "bad arguments"))
	require.Error(t, err)
	require.Len(t, db.recorded, 1)
	assert.False(t, db.recorded[0].OK)
	assert.False(t, errors.Is(err, context.Canceled))
}
