package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// gatedSink is an audit sink that refuses every row, as SQLite does while
// another program holds the write lock, until it is opened.
type gatedSink struct {
	open atomic.Bool
	log  fake.AuditLog
}

func (g *gatedSink) Record(ctx context.Context, e domain.AuditEntry) error {
	if !g.open.Load() {
		return domain.Errorf(domain.ErrBusy, "mem.db is locked by another program; retry")
	}
	return g.log.Record(ctx, e)
}

var _ ports.AuditSink = (*gatedSink)(nil)

// logBuffer is a concurrency-safe log destination.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// gatedWorld is a world whose audit sink is shut until opened.
func gatedWorld(t *testing.T) (*world, *gatedSink, *logBuffer) {
	t.Helper()
	w := newWorld(t)
	w.db.Statements.Columns = []string{"secret"}
	w.db.Statements.Rows = [][]any{{int64(1000)}}
	w.db.Statements.Compiled = domain.Compiled{Actions: []domain.Action{domain.ActionSelect}}
	g := &gatedSink{}
	d := w.deps()
	d.Audit = g
	logs := &logBuffer{}
	w.svc = app.New(d, app.Options{Limits: w.limits, Session: "20261201T100000Z-test", Logger: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(func() { _ = w.svc.Close() })
	return w, g, logs
}

func lateDetail(t *testing.T, e domain.AuditEntry) map[string]any {
	t.Helper()
	var d map[string]any
	require.NoError(t, json.Unmarshal([]byte(e.Detail), &d), "detail is JSON: %q", e.Detail)
	return d
}

// A call whose row cannot be stored fails without its data, and its row,
// with the error the agent saw, is stored once the sink takes rows again,
// marked late with the reason. Calls that fail for their own reason are
// owed the same way.
func TestFailedCallsRowIsWrittenLate(t *testing.T) {
	t.Parallel()
	w, g, _ := gatedWorld(t)
	out, err := text(w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT secret", Limit: 10}))
	wantKind(t, err, domain.ErrBusy, "locked by another program")
	assert.Empty(t, out, "no data without its row")
	rejected := w.svc.Reject(context.Background(), "some_tool", domain.Errorf(domain.ErrInvalidArgument, "unknown argument"))
	require.Error(t, rejected)
	assert.Empty(t, g.log.Entries())

	g.open.Store(true)
	require.NoError(t, w.svc.Flush(context.Background()))
	got := g.log.Entries()
	require.Len(t, got, 2)
	for i, want := range []error{err, rejected} {
		assert.False(t, got[i].OK)
		assert.Equal(t, want.Error(), got[i].Error)
		assert.Equal(t, domain.FormatTS(epoch), got[i].TS, "the call's own time")
		d := lateDetail(t, got[i])
		assert.Equal(t, true, d["late"])
		assert.Contains(t, d["late_reason"], "locked by another program")
		assert.NotContains(t, d, "lost_before")
	}
	assert.Equal(t, "read_query", got[0].Tool)
	assert.Equal(t, "some_tool", got[1].Tool)

	// Once the sink works, calls answer with their data and leave their
	// row before they answer, as always.
	out, err = text(w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT secret", Limit: 10}))
	require.NoError(t, err)
	assert.Contains(t, out, "1000")
	got = g.log.Entries()
	require.Len(t, got, 3)
	assert.True(t, got[2].OK)
	assert.NotContains(t, got[2].Detail, "late")
}

// The backlog is bounded: rows beyond it are counted, and the next row
// kept says how many were lost before it.
func TestOwedRowsAreBounded(t *testing.T) {
	t.Parallel()
	w, g, logs := gatedWorld(t)
	reject := func() {
		require.Error(t, w.svc.Reject(context.Background(), "some_tool", domain.Errorf(domain.ErrInvalidArgument, "unknown argument")))
	}
	for range app.MaxOwedRows + 3 {
		reject()
	}
	assert.Contains(t, logs.String(), "audit row lost")
	g.open.Store(true)
	require.NoError(t, w.svc.Flush(context.Background()))
	assert.Len(t, g.log.Entries(), app.MaxOwedRows)

	g.open.Store(false)
	reject()
	g.open.Store(true)
	require.NoError(t, w.svc.Flush(context.Background()))
	got := g.log.Entries()
	require.Len(t, got, app.MaxOwedRows+1)
	assert.Equal(t, float64(3), lateDetail(t, got[app.MaxOwedRows])["lost_before"])
}

// Close writes what it can within its bound; rows it could not write go
// to the operator's log, and so do rows of calls after Close.
func TestCloseLogsRowsStillOwed(t *testing.T) {
	t.Parallel()
	w, g, logs := gatedWorld(t)
	_, err := w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT secret -- before close", Limit: 10})
	require.Error(t, err)
	require.NoError(t, w.svc.Close())
	assert.Contains(t, logs.String(), "audit row not written before shutdown")
	assert.Contains(t, logs.String(), "SELECT secret -- before close")
	_, err = w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT secret -- after close", Limit: 10})
	require.Error(t, err)
	assert.Contains(t, logs.String(), "SELECT secret -- after close")
	g.open.Store(true)
	require.NoError(t, w.svc.Flush(context.Background()))
	assert.Empty(t, g.log.Entries(), "after Close nothing is kept")
	assert.Equal(t, 2, strings.Count(logs.String(), "audit row not written"))
}
