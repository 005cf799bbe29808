package app

import (
	"context"
	"errors"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// WriteQuery runs INSERT, UPDATE, upsert, REPLACE or additive DDL in one
// transaction, with the UPDATE guard. Under --confirm writes a statement
// that would delete or change rows is measured first and a person asked
// (confirm.go).
func (s *Service) WriteQuery(ctx context.Context, r domain.WriteQueryRequest) (ports.Result, error) {
	call, query := ctx, r.Query
	return s.run(ctx, domain.ToolWriteQuery, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(query)
		if strings.TrimSpace(query) == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "query must not be empty: pass one INSERT, UPDATE or CREATE statement")
		}
		req := domain.WriteRequest{Tier: domain.TierWrite, SQL: query, MaxUpdateRows: s.limits.MaxUpdateRows}
		suffix := ""
		if s.confirmSet.Mode == domain.ConfirmWrites {
			d, asked, im, err := s.confirmWrite(ctx, call, sp, query)
			if err != nil {
				return "", err
			}
			if !d.Outcome.Runs() {
				return "", d.Refusal(domain.ToolWriteQuery)
			}
			req.Approved, req.ApprovedRows = approval(d, im)
			suffix = confirmNote(d, asked, im, -2)
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(call, s.limits.QueryTimeout) // a full deadline after the wait
			defer cancel()
		}
		describe := func(res domain.WriteResult) {
			if res.RowsAffected >= 0 {
				sp.setRows(res.RowsAffected)
			}
		}
		req.Audit = sealWith(s.auditStatements, sp, describe)
		out, res, err := s.write(ctx, sp, req, suffix)
		if err == nil {
			describe(res)
		}
		return out, err
	})
}

// confirmWrite measures a write_query statement that can change rows and
// asks about it when the rule says so.
func (s *Service) confirmWrite(ctx, call context.Context, sp *span, query string) (domain.Decision, bool, domain.Impact, error) {
	c, err := s.d.Statements.Compile(ctx, domain.TierWrite, query)
	if err != nil {
		return domain.Decision{}, false, domain.Impact{}, err
	}
	if c.ReadOnly || c.Empty || !(c.Has(domain.ActionInsert) || c.Has(domain.ActionUpdate) || c.Has(domain.ActionDelete)) {
		return domain.Decision{Outcome: domain.OutcomeUnasked}, false, domain.Impact{}, nil
	}
	im, err := s.measure(ctx, domain.TierWrite, query)
	if err != nil {
		return domain.Decision{}, false, domain.Impact{}, err
	}
	d, asked := s.confirm(call, sp, s.question(domain.ToolWriteQuery, query, "", im, false))
	return d, asked, im, nil
}

// write runs a write-tier statement and renders its result: the summary line,
// an optional suffix (the snapshot), then any result rows as capped CSV.
func (s *Service) write(ctx context.Context, sp *span, req domain.WriteRequest, suffix string) (string, domain.WriteResult, error) {
	var w *domain.TableWriter
	res, err := s.d.Statements.Write(ctx, req, func(cols []string) {
		w = s.newTable(sp, cols)
	}, func(row []any) bool { return w.Add(row) })
	if err != nil {
		return "", res, err
	}
	out := res.Summary() + suffix
	if res.HasColumns && w != nil {
		out += "\n" + w.Body() + s.trailer(w).String()
	}
	return out, res, nil
}

// DestructiveQuery runs DELETE, DROP, ALTER or CREATE TRIGGER after taking a
// snapshot. Before the snapshot it decides whether there is anything to
// snapshot: the statement is compiled (a syntax, policy or missing-object
// error costs nothing), a statement SQLite calls read-only runs without a
// snapshot, and any other is measured in a dry run that is rolled back, so
// a check that refuses it only while it runs refuses it here. A person is
// then asked, when the settings say so, with what the dry run measured
// (confirm.go); if the snapshot cannot be written the statement does not
// run.
//
// The snapshot and the wait for a person are the server's own work, not
// the agent's: they are not cut short by the query deadline (a large
// database could then never be changed), only by the client cancelling,
// --confirm-wait, or the server shutting down. The statement then runs
// under a full deadline of its own.
func (s *Service) DestructiveQuery(ctx context.Context, r domain.DestructiveQueryRequest) (ports.Result, error) {
	call, query, reason := ctx, r.Query, r.Reason
	return s.run(ctx, domain.ToolDestructiveQuery, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(query)
		reason = domain.StripSpace(reason)
		if reason == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "reason is required: say why this destructive change is needed")
		}
		if strings.TrimSpace(query) == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "query must not be empty: pass one DELETE, DROP or ALTER statement")
		}
		compiled, err := s.d.Statements.Compile(ctx, domain.TierDestructive, query)
		if err != nil {
			return "", err
		}
		if compiled.ReadOnly || compiled.Empty {
			return s.destructiveUnchanged(ctx, sp, query, reason)
		}
		im, err := s.measure(ctx, domain.TierDestructive, query)
		if err != nil {
			return "", err
		}
		d, asked := s.confirm(call, sp, s.question(domain.ToolDestructiveQuery, query, reason, im, true))
		if !d.Outcome.Runs() {
			return "", d.Refusal(domain.ToolDestructiveQuery)
		}
		stop := during(call, 1, 3, "statement checked; writing a snapshot of the database")
		path, err := s.snapshot(call, domain.ToolDestructiveQuery+": "+reason)
		stop()
		if err != nil {
			return "", domain.Errorf(domain.ErrSnapshot, "%s; the statement was not run. Fix the snapshot folder (--snapshot-dir) or start the server with --snapshots 0 to run without snapshots", err.Error())
		}
		ports.ReportProgress(call, 2, 3, "snapshot written; running the statement")
		ctx, cancel := context.WithTimeout(call, s.limits.QueryTimeout)
		defer cancel()
		suffix := confirmNote(d, asked, im, -2) + "; snapshots are disabled"
		var snap any
		if path != "" {
			suffix, snap = confirmNote(d, asked, im, -2)+"; snapshot: "+path, path
		}
		describe := func(res domain.WriteResult) {
			if res.RowsAffected >= 0 {
				sp.setRows(res.RowsAffected)
			}
			sp.detail = domain.Detail{{Key: "reason", Value: reason}, {Key: snapshotKey, Value: snap}}
		}
		req := domain.WriteRequest{Tier: domain.TierDestructive, SQL: query, Audit: sealWith(s.auditStatements, sp, describe)}
		req.Approved, req.ApprovedRows = approval(d, im)
		out, res, err := s.write(ctx, sp, req, suffix)
		if err != nil {
			return "", err
		}
		describe(res)
		if asked && im.Partial == "" && res.RowsAffected != im.RowsAffected {
			first, rest, _ := strings.Cut(out, "\n")
			out = first + confirmNote(d, asked, im, res.RowsAffected)
			if rest != "" {
				out += "\n" + rest
			}
		}
		return out, nil
	})
}

// snapshotKey is destructive_query's audit detail key of the snapshot's
// path.
const snapshotKey = "snapshot"

// approval is the bound a person's yes puts on the real run: no more rows
// deleted or changed than the exact impact they were shown.
func approval(d domain.Decision, im domain.Impact) (bool, int64) {
	if d.Outcome != domain.OutcomeApproved || im.Partial != "" {
		return false, 0
	}
	return true, im.Overwritten()
}

// destructiveUnchanged runs a destructive_query statement that cannot
// change the database (a plain SELECT): no snapshot, no question.
func (s *Service) destructiveUnchanged(ctx context.Context, sp *span, query, reason string) (string, error) {
	describe := func(res domain.WriteResult) {
		sp.detail = domain.Detail{{Key: "reason", Value: reason}, {Key: snapshotKey, Value: nil}}
	}
	out, res, err := s.write(ctx, sp, domain.WriteRequest{Tier: domain.TierDestructive, SQL: query,
		Audit: sealWith(s.auditStatements, sp, describe)}, "; no snapshot: the statement cannot change the database")
	if err != nil {
		return "", err
	}
	describe(res)
	return out, nil
}

// confirmNote is what the answer says about the confirmation: who
// approved, that nobody was asked, or (real >= -1) that the statement
// changed another number of rows than the question showed.
func confirmNote(d domain.Decision, asked bool, im domain.Impact, real int64) string {
	switch {
	case real >= -1:
		return "; note: it changed " + itoa64(real) + " rows, not the " + itoa64(im.RowsAffected) + " the person was shown (the database changed in between)"
	case !asked:
		return ""
	case d.Outcome == domain.OutcomeUnasked:
		return "; nobody was asked to approve it (" + d.Note + ")"
	}
	return "; approved by the person (" + d.By + ")"
}

func (s *Service) snapshot(ctx context.Context, reason string) (string, error) {
	if s.d.Snapshots == nil {
		return "", nil
	}
	return s.d.Snapshots.Snapshot(ctx, reason)
}

// Snapshot writes a snapshot on demand.
// Like destructive_query's, it is not cut short by the query deadline.
func (s *Service) Snapshot(ctx context.Context, r domain.SnapshotRequest) (ports.Result, error) {
	call, reason := ctx, r.Reason
	return s.run(ctx, domain.ToolSnapshot, func(_ context.Context, sp *span) (string, error) {
		sp.setQuery(reason)
		stop := during(call, 0, 1, "writing a snapshot of the database")
		path, err := s.snapshot(call, reason)
		stop()
		if err != nil {
			return "", err
		}
		ports.ReportProgress(call, 1, 1, "snapshot written")
		var p any
		out := "ok: snapshot skipped (snapshots are disabled: the server runs with --snapshots 0)"
		if path != "" {
			p, out = path, "ok: snapshot written: "+path
		}
		sp.detail = domain.Detail{{Key: "reason", Value: reason}, {Key: "path", Value: p}}
		return out, nil
	})
}

// CreateView stores a SELECT as a view with its description inside, so the
// next session finds it in get_schema.
func (s *Service) CreateView(ctx context.Context, r domain.CreateViewRequest) (ports.Result, error) {
	call := ctx
	return s.run(ctx, domain.ToolCreateView, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(r.SelectSQL)
		name, err := domain.ValidateViewName(r.Name)
		if err != nil {
			return "", err
		}
		body, err := domain.NormalizeViewBody(r.SelectSQL)
		if err != nil {
			return "", err
		}
		c, err := s.d.Statements.Compile(domain.WithOrigin(ctx, domain.ToolCreateView+"'s SELECT"), domain.TierRead, body)
		if err != nil {
			return "", err
		}
		if c.Empty || !c.Has(domain.ActionSelect) {
			return "", domain.Errorf(domain.ErrInvalidArgument, domain.ToolCreateView+"'s select_sql must be one SELECT (or WITH ... SELECT) statement; run other statements with "+domain.ToolWriteQuery)
		}
		var previous any
		existing, err := s.d.Schema.Object(ctx, name)
		switch {
		case errors.Is(err, domain.ErrNotFound):
		case err != nil:
			return "", err
		case existing.Type != "view":
			return "", domain.Errorf(domain.ErrConflict, "a %s named %s already exists; pick another name", existing.Type, domain.Quote(existing.Name))
		case !r.Replace:
			return "", domain.Errorf(domain.ErrConflict, "view %s already exists; pass replace=true to redefine it", domain.Quote(existing.Name))
		default:
			previous = existing.SQL
		}
		if previous != nil && s.confirmSet.Mode == domain.ConfirmWrites {
			im := domain.Impact{RowsAffected: -1, Objects: []domain.ObjectChange{{Change: "altered", Type: "view", Name: name, Rows: -1}}}
			q := s.question(domain.ToolCreateView, "CREATE VIEW "+name+" AS "+body, "", im, false)
			q.Snapshot = "Its definition now: " + existing.SQL + "\n" + domain.ToolCreateView + " takes no snapshot; the previous definition is kept in query_log."
			if d, _ := s.confirm(call, sp, q); !d.Outcome.Runs() {
				return "", d.Refusal(domain.ToolCreateView)
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(call, s.limits.QueryTimeout) // a full deadline after the wait
			defer cancel()
		}
		describe := func(name string) {
			sp.detail = domain.Detail{{Key: "view", Value: name}, {Key: "replaced", Value: previous != nil}, {Key: "previous_sql", Value: previous}}
		}
		if err := s.d.Views.ReplaceView(ctx, domain.View{Name: name, Description: r.Description, Body: body}, previous != nil,
			sealWith(s.auditViews, sp, describe)); err != nil {
			return "", err
		}
		describe(name)
		if previous != nil {
			return "ok: view " + name + " replaced; the previous definition is kept in query_log", nil
		}
		return "ok: view " + name + " created", nil
	})
}
