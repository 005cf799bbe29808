package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// errKindSink is an audit sink that keeps its entries, or fails with err.
type errKindSink struct {
	mu      sync.Mutex
	entries []domain.AuditEntry
	err     error
}

func (s *errKindSink) Record(_ context.Context, e domain.AuditEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.entries = append(s.entries, e)
	return nil
}

// fail makes every later Record fail with err. It takes the lock: the
// service's flusher may still be retrying an owed row on the sink.
func (s *errKindSink) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// errKindService fails every read with readErr, as an adapter that forgot
// to translate an error would.
func errKindService(readErr error, sink *errKindSink, log *bytes.Buffer) *app.Service {
	db := fake.NewStore()
	db.Statements.Columns, db.Statements.Rows, db.Statements.ReadErr = []string{"v"}, [][]any{{int64(1)}}, readErr
	return app.New(app.Deps{Statements: db, Schema: db, Views: db, Candidates: db, Memory: db, Audit: sink, Clock: fake.NewClock(epoch)},
		app.Options{Limits: domain.DefaultLimits(), Session: "s", Logger: slog.New(slog.NewTextHandler(log, nil))})
}

// TestErrorsKeepTheirKind: an error no adapter translated reaches the
// agent as ErrInternal with one fixed message that says what to do, never
// as an SQLite error with the raw text; the raw text goes to the log only
// (not to query_log, which agents read). A context's end that escaped
// translation is a timeout; a domain error passes unchanged.
func TestErrorsKeepTheirKind(t *testing.T) {
	const secret = "open /home/alice/private/x.db: driver state 0x7f"
	cases := []struct {
		name     string
		readErr  error
		kind     error
		message  string
		logsText bool
	}{
		{"untranslated", errors.New(secret), domain.ErrInternal, domain.Internal().Message, true},
		{"wrapped untranslated", fmt.Errorf("step: %w", errors.New(secret)), domain.ErrInternal, domain.Internal().Message, true},
		{"deadline", fmt.Errorf("%s: %w", secret, context.DeadlineExceeded), domain.ErrTimeout,
			"the call ran past its 10s deadline (--query-timeout) and was cancelled; narrow it and retry", true},
		{"cancelled", fmt.Errorf("%s: %w", secret, context.Canceled), domain.ErrTimeout,
			"the call was cancelled before it finished (the client gave up or the server is shutting down)", true},
		{"domain error", fmt.Errorf("wrapped: %w", domain.SQLiteError("no such table: t")), domain.ErrSQLite, "SQLite error: no such table: t", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink, log := &errKindSink{}, &bytes.Buffer{}
			_, err := errKindService(c.readErr, sink, log).ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
			require.Error(t, err)
			assert.ErrorIs(t, err, c.kind)
			if c.kind == domain.ErrSQLite {
				return
			}
			assert.NotErrorIs(t, err, domain.ErrSQLite, "only SQLite's own errors are SQLite errors")
			assert.Equal(t, c.message, err.Error())
			require.Len(t, sink.entries, 1)
			assert.Equal(t, c.message, sink.entries[0].Error, "the audit row holds what the agent saw")
			assert.Equal(t, c.logsText, bytes.Contains(log.Bytes(), []byte("alice")), "the cause is in the log: %s", log)
		})
	}
}

// TestAnUntranslatedAuditFailureKeepsItsTextOut: the sink's raw error is
// logged; the agent gets the withheld-result message with the internal
// error's fixed text and kind.
func TestAnUntranslatedAuditFailureKeepsItsTextOut(t *testing.T) {
	log := &bytes.Buffer{}
	sink := &errKindSink{err: errors.New("write /home/alice/audit.db: disk I/O error")}
	_, err := errKindService(nil, sink, log).ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
	require.Error(t, err)
	assert.ErrorIs(t, err, domain.ErrInternal)
	assert.NotContains(t, err.Error(), "alice")
	assert.Contains(t, err.Error(), "its result is withheld")
	assert.Contains(t, log.String(), "alice")

	sink.fail(domain.Errorf(domain.ErrBusy, "query_log is locked"))
	_, err = errKindService(errors.New("raw read failure"), sink, log).ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
	assert.ErrorIs(t, err, domain.ErrInternal, "the call's own kind stays first")
	assert.Equal(t, domain.Internal().Message+" (and its audit row could not be written: query_log is locked)", err.Error())
}
