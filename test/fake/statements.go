package fake

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Call is one call a fake received: the method, the SQL or name it was
// given, and the deadline of its context (zero when it had none).
type Call struct {
	Method   string
	SQL      string
	Tier     domain.Tier
	Request  domain.WriteRequest // Write's request, Audit included
	Deadline time.Time
}

// calls keeps what a fake was asked, safely across goroutines.
type calls struct {
	mu   sync.Mutex
	list []Call
}

func (c *calls) add(ctx context.Context, call Call) {
	call.Deadline, _ = ctx.Deadline()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, call)
}

// Calls returns the calls received so far, in order.
func (c *calls) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Call(nil), c.list...)
}

// timedOut is the error a fake gives for a context that is done, as the
// adapters do.
func timedOut(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return domain.Errorf(domain.ErrTimeout, "the statement took too long and was cancelled (%v)", err)
	}
	return nil
}

// Statements is an in-memory [ports.StatementRunner]. Read answers Columns
// and Rows; Write answers Result (and WriteColumns/WriteRows as its result
// set), refuses like the UPDATE guard when Result.RowsAffected is above
// the request's MaxUpdateRows, and seals the request's audit entry into
// Log on success; Compile answers Compiled. The Err fields fail the
// method; the Fn fields replace it.
type Statements struct {
	Columns []string
	Rows    [][]any
	ReadErr error
	ReadFn  func(ctx context.Context, sql string, columns func([]string), row ports.RowFunc) error

	Result       domain.WriteResult
	WriteColumns []string
	WriteRows    [][]any
	WriteErr     error
	Compiled     domain.Compiled
	CompileErr   error
	CompileFn    func(ctx context.Context, tier domain.Tier, sql string) (domain.Compiled, error)
	Log          *AuditLog
	calls
}

var _ ports.StatementRunner = (*Statements)(nil)

// Read streams Columns and Rows until row declines.
func (s *Statements) Read(ctx context.Context, sql string, columns func([]string), row ports.RowFunc) error {
	s.add(ctx, Call{Method: "Read", SQL: sql, Tier: domain.TierRead})
	if s.ReadFn != nil {
		return s.ReadFn(ctx, sql, columns, row)
	}
	if err := timedOut(ctx); err != nil {
		return err
	}
	if s.ReadErr != nil {
		return s.ReadErr
	}
	return stream(s.Columns, s.Rows, columns, row)
}

func stream(cols []string, rows [][]any, columns func([]string), row ports.RowFunc) error {
	columns(cols)
	buf := make([]any, len(cols))
	for _, r := range rows {
		copy(buf, r) // the slice is reused, as the adapters reuse it
		if !row(buf) {
			break
		}
	}
	return nil
}

// Write answers Result, or the guard's refusal, or WriteErr.
func (s *Statements) Write(ctx context.Context, req domain.WriteRequest, columns func([]string), row ports.RowFunc) (domain.WriteResult, error) {
	s.add(ctx, Call{Method: "Write", SQL: req.SQL, Tier: req.Tier, Request: req})
	if err := timedOut(ctx); err != nil {
		return domain.WriteResult{}, err
	}
	if s.WriteErr != nil {
		return domain.WriteResult{}, s.WriteErr
	}
	res := s.Result
	if req.MaxUpdateRows > 0 && res.RowsAffected > int64(req.MaxUpdateRows) {
		return domain.WriteResult{}, domain.GuardError(res.RowsAffected, req.MaxUpdateRows)
	}
	if s.WriteColumns != nil {
		res.HasColumns = true
		if err := stream(s.WriteColumns, s.WriteRows, columns, row); err != nil {
			return domain.WriteResult{}, err
		}
	}
	seal[domain.WriteResult](s.Log, req.Audit, res)
	return res, nil
}

// Compile answers Compiled or CompileErr.
func (s *Statements) Compile(ctx context.Context, tier domain.Tier, sql string) (domain.Compiled, error) {
	s.add(ctx, Call{Method: "Compile", SQL: sql, Tier: tier})
	if s.CompileFn != nil {
		return s.CompileFn(ctx, tier, sql)
	}
	if s.CompileErr != nil {
		return domain.Compiled{}, s.CompileErr
	}
	return s.Compiled, nil
}

// CandidateRows is an in-memory [ports.CandidateSource]: Rows are the
// candidate rows, each the key and then one value per name in Columns;
// Candidates answers the key and the values of the columns asked for, in
// the order asked (nil for a name Columns lacks). The agent's WHERE text
// is recorded, not applied.
type CandidateRows struct {
	Columns []string
	Rows    [][]any
	Err     error

	mu      sync.Mutex
	queries []domain.CandidateQuery
}

var _ ports.CandidateSource = (*CandidateRows)(nil)

// Candidates streams at most q.Limit of Rows and says whether more existed.
func (c *CandidateRows) Candidates(ctx context.Context, q domain.CandidateQuery, row ports.RowFunc) (int, bool, error) {
	c.mu.Lock()
	c.queries = append(c.queries, q)
	c.mu.Unlock()
	if err := timedOut(ctx); err != nil {
		return 0, false, err
	}
	if c.Err != nil {
		return 0, false, c.Err
	}
	n := 0
	for _, r := range c.Rows {
		if n == q.Limit {
			return n, true, nil
		}
		n++
		if !row(project(c.Columns, q.Columns, r)) {
			break
		}
	}
	return n, false, nil
}

// Queries returns the candidate queries asked for so far.
func (c *CandidateRows) Queries() []domain.CandidateQuery {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]domain.CandidateQuery(nil), c.queries...)
}

// project picks the key and the values of want from r, whose values after
// the key are named by have.
func project(have, want []string, r []any) []any {
	out := []any{r[0]}
	for _, w := range want {
		var v any
		for i, h := range have {
			if strings.EqualFold(h, w) && i+1 < len(r) {
				v = r[i+1]
			}
		}
		out = append(out, v)
	}
	return out
}
