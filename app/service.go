package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Deps are the ports the service drives, one per capability: the tools
// that only read the schema get a [ports.SchemaReader], and neither it nor
// the search's [ports.CandidateSource] can change anything. Search and
// Snapshots may be nil in read-only mode; everything else is required.
type Deps struct {
	Statements ports.StatementRunner
	Schema     ports.SchemaReader
	Views      ports.ViewWriter
	Candidates ports.CandidateSource
	Memory     ports.MemoryStore
	Audit      ports.AuditSink
	Snapshots  ports.Snapshotter
	Search     ports.TextSearcher
	Clock      ports.Clock
	// Impact measures a statement before a person is asked about it and
	// before a snapshot is taken; nil in read-only mode.
	Impact ports.ImpactMeter
	// Queue is the approval queue, asked when the client cannot ask and
	// --confirm-fallback is queue; nil otherwise.
	Queue ports.Confirmer
	// Recall answers search_memory, the memory resources and completions;
	// nil answers them as unavailable.
	Recall ports.MemoryRecall
}

// Options are the service's settings.
type Options struct {
	Limits domain.Limits
	// Session identifies this server process in events and audit rows;
	// a call whose context carries a session id ([ports.WithSession]) is
	// recorded under that id instead.
	Session string
	// Logger receives what the agent must not see (audit write failures).
	// nil discards.
	Logger *slog.Logger
	// Confirm says which statements a person must approve, and what
	// happens when the client cannot ask (--confirm, --confirm-fallback,
	// --confirm-wait).
	Confirm domain.ConfirmSettings
	// ConfirmDB names the database in the commands a question suggests
	// (its file name: answers never carry an absolute path).
	ConfirmDB string
	// KeepSecrets stores events and checkpoints as given, secret-shaped
	// text included (--redact-secrets=false); by default it is redacted
	// before hashing (docs/decisions.md#secret-redaction).
	KeepSecrets bool
	// ChainKey is --chain-key-file's key: verify_chain then requires every
	// event to be covered by a head signature of that key
	// (docs/decisions.md#keyed-chain). nil verifies as the reference does.
	ChainKey *domain.ChainKey
}

// Service implements [ports.Tools]. Its results carry no typed tables
// unless it is the view [Service.KeepingTables] returns.
type Service struct {
	*core
	// tables keeps each answer's table as typed values (ports.Result.Table).
	tables bool
}

// KeepingTables returns the same service (its slots, audit backlog and
// verified chain shared) whose results also carry their tables as typed
// values, for a front end that shows them (structured results, the web
// view). Keeping them costs an allocation per value, so only such a front
// end asks.
func (s *Service) KeepingTables() *Service { return &Service{core: s.core, tables: true} }

// core is a service's state, shared by its views.
type core struct {
	d      Deps
	limits domain.Limits
	sess   string
	log    *slog.Logger

	// The write ports that write into the audit sink's own database
	// (ports.AuditSealer) store a write's audit row in the write's
	// transaction; with another sink the row is recorded right after the
	// write commits.
	auditStatements, auditViews, auditMemory bool

	keepSecrets bool             // Options.KeepSecrets
	chainKey    *domain.ChainKey // Options.ChainKey

	calls    slots // tool calls in flight (slots.go)
	searches slots // search_text calls in flight

	owed owed // audit rows of failed calls, written late (owed.go)
	// chain is the memory chain the resume context last verified
	// (verified.go).
	chain      verified
	confirmSet domain.ConfirmSettings
	confirmDB  string
}

var _ ports.Tools = (*Service)(nil)

// New returns a service. It panics on a missing required dependency: that is
// a wiring bug, not a runtime condition.
func New(d Deps, o Options) *Service {
	if d.Statements == nil || d.Schema == nil || d.Views == nil || d.Candidates == nil || d.Memory == nil || d.Audit == nil || d.Clock == nil {
		panic("app.New: Statements, Schema, Views, Candidates, Memory, Audit and Clock are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	same := func(port any) bool {
		sealer, ok := port.(ports.AuditSealer)
		return ok && sealer.Seals(d.Audit)
	}
	return &Service{core: &core{d: d, limits: o.Limits, sess: o.Session, log: o.Logger,
		auditStatements: same(d.Statements), auditViews: same(d.Views), auditMemory: same(d.Memory),
		calls:      newSlots(o.Limits.MaxConcurrentCalls, "--max-concurrent-calls", "calls"),
		searches:   newSlots(o.Limits.MaxConcurrentSearches, "--max-concurrent-searches", domain.ToolSearchText+" calls"),
		confirmSet: o.Confirm, confirmDB: o.ConfirmDB,
		keepSecrets: o.KeepSecrets, chainKey: o.ChainKey,
	}}
}

// span is what a tool call reports to the audit log.
type span struct {
	session string // the call's session id (Service.session)
	query   *string
	rows    *int64
	detail  domain.Detail

	// entry builds the call's successful audit entry; a write's
	// transaction calls it (through seal) just before COMMIT. sealed
	// records that it did.
	entry  func() domain.AuditEntry
	sealed bool

	// held says the call holds its slot (a wait for a person gives it
	// back, confirm.go); confirm is the confirmation's record, kept in
	// the audit row whether the call succeeds or not.
	held    bool
	confirm domain.Detail

	// keep says the caller wants the call's table as typed values
	// (Service.KeepingTables); table is it, once newTable started one.
	keep  bool
	table *domain.TableData
}

func (sp *span) setQuery(q string) { sp.query = &q }
func (sp *span) setRows(n int64)   { sp.rows = &n }

// seal returns the call's audit entry for the write transaction that
// stores it; the call then needs no row of its own unless it fails.
func (sp *span) seal() domain.AuditEntry {
	sp.sealed = true
	return sp.entry()
}

// sealWith is the audit function a write port calls just before COMMIT:
// describe fills the span from what was stored, and the entry is sealed
// into the write's transaction. It is nil when the port is not the audit
// sink's database (run then records the row after the write). Callers
// also call describe after the port returns, for that case.
func sealWith[T any](inTx bool, sp *span, describe func(T)) ports.AuditFunc[T] {
	if !inTx {
		return nil
	}
	return func(v T) domain.AuditEntry {
		describe(v)
		return sp.seal()
	}
}

// auditGrace is the least time a call's audit row gets to be committed,
// even when the call itself used up its deadline: a call that timed out
// still leaves its failure row.
const auditGrace = 500 * time.Millisecond

// run wraps one tool call: it arms the call's deadline, runs fn and
// commits the call's audit row before it returns, failures included. A
// write's row commits in the write's own transaction (span.seal); every
// other row goes to the audit sink, which groups the rows of overlapping
// calls into one commit. When the row cannot be committed by the deadline,
// the call fails and its result is withheld: no answer leaves unaudited.
// Its row, with the error the agent saw, is then owed and written late
// (owed.go).
func (s *Service) run(ctx context.Context, tool string, fn func(context.Context, *span) (string, error)) (ports.Result, error) {
	start := s.d.Clock.Now()
	sp := &span{session: s.session(ctx), keep: s.tables}
	sp.entry = func() domain.AuditEntry { return s.entry(tool, start, sp, nil) }
	cctx, cancel := context.WithTimeout(ctx, s.limits.QueryTimeout) // counts from arrival
	defer cancel()
	out, err := "", s.calls.acquire(cctx, domain.FormatSeconds(s.limits.QueryTimeout))
	if err == nil {
		sp.held = true
		func() {
			defer func() {
				if sp.held {
					s.calls.release()
				}
			}()
			out, err = fn(cctx, sp)
		}()
	}
	err = s.public(tool, err)
	if err == nil && sp.sealed {
		s.owed.nudge()
		return ports.Result{Text: out, Table: sp.table}, nil // the row committed with the write
	}
	// The row is written even when the client cancelled the call, within
	// the call's deadline or a short grace after it. A call that failed
	// because another program holds the write lock gets the grace only:
	// its row waits for that same lock.
	dl, _ := cctx.Deadline()
	if errors.Is(err, domain.ErrBusy) {
		dl = time.Time{}
	}
	actx, acancel := context.WithDeadline(context.WithoutCancel(ctx), later(dl, time.Now().Add(auditGrace)))
	defer acancel()
	if aerr := s.d.Audit.Record(actx, s.entry(tool, start, sp, err)); aerr != nil {
		s.log.Warn("could not write the query_log entry in time; it is written late", "tool", tool, "err", aerr)
		aerr = s.public(tool, aerr)
		err = s.unaudited(err, aerr)
		s.owe(s.entry(tool, start, sp, err), aerr)
		return ports.Result{}, err
	}
	s.owed.nudge()
	if err != nil {
		return ports.Result{}, err
	}
	return ports.Result{Text: out, Table: sp.table}, nil
}

// runText is run for a call that answers with text alone (a resource, a
// prompt).
func (s *Service) runText(ctx context.Context, tool string, fn func(context.Context, *span) (string, error)) (string, error) {
	res, err := s.run(ctx, tool, fn)
	return res.Text, err
}

// session is the id a call is recorded under: its client session's when
// the driving adapter set one ([ports.WithSession]), else the process's.
func (s *Service) session(ctx context.Context) string {
	if id := ports.SessionFrom(ctx); id != "" {
		return id
	}
	return s.sess
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// unaudited is the error of a call whose audit row could not be committed:
// its result, if it had one, is withheld. Both errors are public ones
// (Service.public), so both keep their kinds.
func (s *Service) unaudited(callErr, auditErr error) error {
	var ae *domain.Error
	errors.As(auditErr, &ae)
	switch {
	case callErr != nil && errors.Is(callErr, domain.ErrBusy) && errors.Is(auditErr, domain.ErrBusy):
		return domain.Errorf(domain.ErrBusy, "%s (its audit row could not be written either, for the same reason)", callErr.Error())
	case callErr != nil:
		var ce *domain.Error
		errors.As(callErr, &ce)
		return domain.Errorf(ce.Kind, "%s (and its audit row could not be written: %s)", ce.Message, ae.Message)
	}
	return domain.Errorf(ae.Kind, "the call's audit row could not be written, so its result is withheld "+
		"(every call is recorded in query_log before it answers): %s", ae.Message)
}

// public makes sure only messages meant for the agent leave the core, each
// with its kind: a [*domain.Error] passes as it is; a context's end that
// no adapter translated is an [domain.ErrTimeout]; anything else is an
// [domain.ErrInternal] with a fixed message, its cause logged for the
// operator and never shown to the agent.
func (s *Service) public(tool string, err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	switch {
	case errors.As(err, &de):
		return de
	case errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("untranslated deadline error", "tool", tool, "err", err)
		return domain.Errorf(domain.ErrTimeout, "the call ran past its %ss deadline (--query-timeout) and was cancelled; narrow it and retry",
			domain.FormatSeconds(s.limits.QueryTimeout))
	case errors.Is(err, context.Canceled):
		s.log.Warn("untranslated cancellation", "tool", tool, "err", err)
		return domain.Errorf(domain.ErrTimeout, "the call was cancelled before it finished (the client gave up or the server is shutting down)")
	}
	s.log.Error("unexpected error, answered as an internal error", "tool", tool, "err", err)
	return domain.Internal()
}

// entry is the call's audit entry, as the agent saw the call.
func (s *Service) entry(tool string, start time.Time, sp *span, err error) domain.AuditEntry {
	e := domain.AuditEntry{
		TS:         domain.FormatTS(start),
		Session:    sp.session,
		Tool:       tool,
		Query:      sp.query,
		OK:         err == nil,
		Rows:       sp.rows,
		DurationMS: s.d.Clock.Now().Sub(start).Milliseconds(),
	}
	switch {
	case err != nil && sp.confirm != nil:
		e.Error, e.Detail = err.Error(), domain.Detail{{Key: "confirm", Value: sp.confirm}}.String()
	case err != nil:
		e.Error = err.Error()
	case sp.confirm != nil:
		e.Detail = append(sp.detail[:len(sp.detail):len(sp.detail)], domain.Field{Key: "confirm", Value: sp.confirm}).String()
	default:
		e.Detail = sp.detail.String()
	}
	return e
}

// Reject audits a call refused before it reached its tool.
func (s *Service) Reject(ctx context.Context, tool string, err error) error {
	_, err = s.run(ctx, tool, func(context.Context, *span) (string, error) { return "", err })
	return err
}
