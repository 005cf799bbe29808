package app

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Deps are the ports the service drives. Search and Snapshots may be nil in
// read-only mode; everything else is required.
type Deps struct {
	Statements ports.StatementRunner
	Catalog    ports.Catalog
	Memory     ports.MemoryStore
	Audit      ports.AuditSink
	Snapshots  ports.Snapshotter
	Search     ports.TextSearcher
	Clock      ports.Clock
}

// Options are the service's settings.
type Options struct {
	Limits domain.Limits
	// Session identifies this server process in events and audit rows.
	Session string
	// Logger receives what the agent must not see (audit write failures).
	// nil discards.
	Logger *slog.Logger
}

// Service implements [ports.Tools].
type Service struct {
	d      Deps
	limits domain.Limits
	sess   string
	log    *slog.Logger

	// Audit rows are written in the background, one after another, while
	// the response travels to the client; a new call first waits for the
	// rows already queued, so a client always sees the rows of its earlier
	// calls (in query_errors, say). last is closed when the most recently
	// queued row is written.
	auditMu sync.Mutex
	last    chan struct{}

	calls    slots // tool calls in flight (slots.go)
	searches slots // search_text calls in flight
}

var _ ports.Tools = (*Service)(nil)

// New returns a service. It panics on a missing required dependency: that is
// a wiring bug, not a runtime condition.
func New(d Deps, o Options) *Service {
	if d.Statements == nil || d.Catalog == nil || d.Memory == nil || d.Audit == nil || d.Clock == nil {
		panic("app.New: Statements, Catalog, Memory, Audit and Clock are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	done := make(chan struct{})
	close(done)
	return &Service{d: d, limits: o.Limits, sess: o.Session, log: o.Logger, last: done,
		calls:    newSlots(o.Limits.MaxConcurrentCalls, "--max-concurrent-calls", "calls"),
		searches: newSlots(o.Limits.MaxConcurrentSearches, "--max-concurrent-searches", "search_text calls"),
	}
}

// span is what a tool call reports to the audit log.
type span struct {
	query  *string
	rows   *int64
	detail domain.Detail
}

func (sp *span) setQuery(q string) { sp.query = &q }
func (sp *span) setRows(n int64)   { sp.rows = &n }

// run wraps one tool call: it arms the call's deadline, runs fn and writes
// the audit row afterwards on its own connection, failures included.
func (s *Service) run(ctx context.Context, tool string, fn func(context.Context, *span) (string, error)) (string, error) {
	s.awaitAudit(auditWait)
	start := s.d.Clock.Now()
	sp := &span{}
	cctx, cancel := context.WithTimeout(ctx, s.limits.QueryTimeout) // counts from arrival
	out, err := "", s.calls.acquire(cctx, domain.FormatSeconds(s.limits.QueryTimeout))
	if err == nil {
		func() { defer s.calls.release(); out, err = fn(cctx, sp) }()
	}
	cancel()
	err = s.public(err)
	s.record(ctx, tool, start, sp, err)
	return out, err
}

// public makes sure only messages meant for the agent leave the core.
func (s *Service) public(err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return de
	}
	s.log.Error("unexpected error", "err", err)
	return domain.Errorf(domain.ErrSQLite, "internal error: %v", err)
}

func (s *Service) record(ctx context.Context, tool string, start time.Time, sp *span, err error) {
	e := domain.AuditEntry{
		TS:         domain.FormatTS(start),
		Session:    s.sess,
		Tool:       tool,
		Query:      sp.query,
		OK:         err == nil,
		Rows:       sp.rows,
		DurationMS: s.d.Clock.Now().Sub(start).Milliseconds(),
	}
	if err != nil {
		e.Error = err.Error()
	} else {
		e.Detail = sp.detail.String()
	}
	s.auditMu.Lock()
	prev, mine := s.last, make(chan struct{})
	s.last = mine
	s.auditMu.Unlock()
	go func() {
		defer close(mine)
		<-prev // keep the rows in call order
		if werr := s.d.Audit.Record(context.WithoutCancel(ctx), e); werr != nil {
			s.log.Warn("could not write the query_log entry", "tool", tool, "err", werr)
		}
	}()
}

// auditWait bounds how long a call waits for the audit rows of earlier
// calls. Normally they take milliseconds; when another program holds the
// write lock, a row waits out the busy timeout, and without a bound every
// later call, reads included, would wait that long too. Rows still reach
// query_log in call order.
const auditWait = time.Second

// awaitAudit waits until every audit row queued so far is written, or d.
func (s *Service) awaitAudit(d time.Duration) {
	s.auditMu.Lock()
	last := s.last
	s.auditMu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-last:
	case <-t.C:
	}
}

// Flush waits until every audit row queued so far is written. Call it
// before closing the audit sink.
func (s *Service) Flush() {
	s.auditMu.Lock()
	last := s.last
	s.auditMu.Unlock()
	<-last
}

// Reject audits a call refused before it reached its tool.
func (s *Service) Reject(ctx context.Context, tool string, err error) error {
	_, err = s.run(ctx, tool, func(context.Context, *span) (string, error) { return "", err })
	return err
}

// limit applies a row limit's bounds (1 to max_rows).
func (s *Service) limit(name string, v int) error {
	return domain.CheckLimit(name, v, s.limits.MaxRows)
}
