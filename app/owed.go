package app

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// A call whose audit row cannot be committed by its deadline fails and
// returns no data (run). Its row is not dropped: it is owed. The service
// keeps it in memory, marked late with the reason ([domain.AuditEntry.Late]),
// and writes it once the sink takes it again, so a long lock held by another
// program hides no one's attempts. The backlog is bounded; rows that do not
// fit are counted, and the next row kept says how many were lost before it.
// Close writes what it can within owedCloseWait and hands the rest to the
// operator's log; a process killed outright (SIGKILL, power loss) loses the
// rows still owed.

const (
	// maxOwedRows and maxOwedBytes bound the backlog.
	maxOwedRows  = 1000
	maxOwedBytes = 16 << 20
	// owedAttempt bounds one try at writing an owed row. It is short: a
	// try holds this server's write turn while it waits for another
	// program's lock, and calls queue behind it.
	owedAttempt = 250 * time.Millisecond
	// owedRetryMin and owedRetryMax bound the pause between tries; a call
	// whose own row commits cuts the pause short (the lock is free).
	owedRetryMin = 100 * time.Millisecond
	owedRetryMax = 2 * time.Second
	// owedCloseWait is how long Close keeps trying before it gives up.
	owedCloseWait = 2 * time.Second
)

// owed is the backlog of late audit rows; its zero value is ready.
type owed struct {
	mu      sync.Mutex
	rows    []domain.AuditEntry // marked late, oldest first
	bytes   int                 // their Size
	lost    int                 // rows refused since the last one kept
	running bool                // a flusher goroutine is on its way
	stopped chan struct{}       // closed when that flusher ends
	closed  bool                // Close has run: nothing is kept any more
	drained chan struct{}       // closed when rows empties; nil while empty
	kick    chan struct{}       // a try is worth making now; made with the first flusher
}

// owe keeps the row of a call that failed because e (its entry, as the
// agent saw the call) could not be recorded: reason is the sink's error.
func (s *Service) owe(e domain.AuditEntry, reason error) {
	o := &s.owed
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		s.log.Warn("audit row not written (the server is shutting down)", entryAttrs(e.Late(reason.Error(), 0))...)
		return
	}
	if len(o.rows) >= maxOwedRows || o.bytes+e.Size() > maxOwedBytes {
		o.lost++
		o.mu.Unlock()
		s.log.Warn("audit row lost: too many rows are already waiting to be written", entryAttrs(e)...)
		return
	}
	e = e.Late(reason.Error(), o.lost)
	o.lost = 0
	o.rows = append(o.rows, e)
	o.bytes += e.Size()
	if o.drained == nil {
		o.drained = make(chan struct{})
	}
	var stopped chan struct{}
	if !o.running {
		stopped = make(chan struct{})
		o.running, o.stopped = true, stopped
		if o.kick == nil {
			o.kick = make(chan struct{}, 1)
		}
	}
	o.mu.Unlock()
	if stopped != nil {
		go s.flushOwed(stopped)
	}
}

// nudge tells the flusher the sink just took a row, so the lock is free.
func (o *owed) nudge() {
	o.mu.Lock()
	kick := o.kick
	o.mu.Unlock()
	if kick == nil {
		return // no flusher ever ran
	}
	select {
	case kick <- struct{}{}:
	default:
	}
}

// flushOwed writes the owed rows, oldest first, until none is left or
// Close stops it; it closes stopped when it ends. Only one runs at a time.
func (s *Service) flushOwed(stopped chan struct{}) {
	defer close(stopped)
	o := &s.owed
	o.mu.Lock()
	kick := o.kick
	o.mu.Unlock()
	pause := owedRetryMin
	for {
		o.mu.Lock()
		if len(o.rows) == 0 || o.closed {
			o.running = false
			o.mu.Unlock()
			return
		}
		e := o.rows[0]
		o.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), owedAttempt)
		err := s.d.Audit.Record(ctx, e)
		cancel()
		if err == nil {
			o.mu.Lock()
			o.rows = o.rows[1:]
			o.bytes -= e.Size()
			if len(o.rows) == 0 {
				close(o.drained)
				o.drained, o.rows = nil, nil
			}
			o.mu.Unlock()
			pause = owedRetryMin
			continue
		}
		t := time.NewTimer(pause)
		select {
		case <-kick:
		case <-t.C:
		}
		t.Stop()
		pause = min(2*pause, owedRetryMax)
	}
}

// Flush waits until every owed audit row is written, or ctx ends.
func (s *Service) Flush(ctx context.Context) error {
	o := &s.owed
	o.mu.Lock()
	ch := o.drained
	o.mu.Unlock()
	if ch == nil {
		return nil
	}
	o.nudge()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes the owed audit rows, for at most owedCloseWait, then stops
// keeping any. Rows still owed go to the operator's log, one line each.
// Call it before the audit sink closes.
func (s *Service) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), owedCloseWait)
	defer cancel()
	_ = s.Flush(ctx)
	o := &s.owed
	o.mu.Lock()
	o.closed = true
	stopped := o.stopped
	running := o.running
	o.mu.Unlock()
	if running {
		o.nudge() // a flusher between tries sees closed and ends
		<-stopped // a try under way is bounded by owedAttempt and the sink's own wait
	}
	o.mu.Lock()
	left, lost := o.rows, o.lost
	o.rows, o.bytes, o.lost = nil, 0, 0
	if o.drained != nil {
		close(o.drained)
		o.drained = nil
	}
	o.mu.Unlock()
	for _, e := range left {
		s.log.Warn("audit row not written before shutdown", entryAttrs(e)...)
	}
	if lost > 0 {
		s.log.Warn("audit rows lost: the backlog of rows waiting to be written was full", "count", lost)
	}
	return nil
}

// entryAttrs are e's fields as log attributes.
func entryAttrs(e domain.AuditEntry) []any {
	q := ""
	if e.Query != nil {
		q = *e.Query
	}
	return []any{"ts", e.TS, "session", e.Session, "tool", e.Tool, "query", q, "ok", e.OK,
		"error", e.Error, "duration_ms", e.DurationMS, "detail", e.Detail}
}
