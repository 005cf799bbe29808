package app

import (
	"context"
	"errors"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// WriteQuery runs INSERT, UPDATE, upsert, REPLACE or additive DDL in one
// transaction, with the UPDATE guard.
func (s *Service) WriteQuery(ctx context.Context, query string) (string, error) {
	return s.run(ctx, domain.ToolWriteQuery, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(query)
		if strings.TrimSpace(query) == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "query must not be empty: pass one INSERT, UPDATE or CREATE statement")
		}
		describe := func(res domain.WriteResult) {
			if res.RowsAffected >= 0 {
				sp.setRows(res.RowsAffected)
			}
		}
		out, res, err := s.write(ctx, domain.WriteRequest{Tier: domain.TierWrite, SQL: query, MaxUpdateRows: s.limits.MaxUpdateRows,
			Audit: sealWith(s.auditStatements, sp, describe)}, "")
		if err == nil {
			describe(res)
		}
		return out, err
	})
}

// write runs a write-tier statement and renders its result: the summary line,
// an optional suffix (the snapshot), then any result rows as capped CSV.
func (s *Service) write(ctx context.Context, req domain.WriteRequest, suffix string) (string, domain.WriteResult, error) {
	var w *domain.TableWriter
	res, err := s.d.Statements.Write(ctx, req, func(cols []string) {
		w = s.newTable(ctx, cols)
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
// snapshot. The statement is compiled first, so a syntax, policy or
// missing-object error costs no snapshot; if the snapshot cannot be written
// the statement does not run.
//
// The snapshot is the server's own work, as long as the file is big, not the
// agent's: it is not cut short by the query deadline (a large database
// could then never be changed), only by the client cancelling or the server
// shutting down. The statement then runs under a full deadline of its own.
func (s *Service) DestructiveQuery(ctx context.Context, query, reason string) (string, error) {
	call := ctx
	return s.run(ctx, domain.ToolDestructiveQuery, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(query)
		reason = domain.StripSpace(reason)
		if reason == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "reason is required: say why this destructive change is needed")
		}
		if strings.TrimSpace(query) == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "query must not be empty: pass one DELETE, DROP or ALTER statement")
		}
		if _, err := s.d.Statements.Compile(ctx, domain.TierDestructive, query); err != nil {
			return "", err
		}
		stop := during(call, 1, 3, "statement compiled; writing a snapshot of the database")
		path, err := s.snapshot(call, domain.ToolDestructiveQuery+": "+reason)
		stop()
		if err != nil {
			return "", domain.Errorf(domain.ErrSnapshot, "%s; the statement was not run. Fix the snapshot folder (--snapshot-dir) or start the server with --snapshots 0 to run without snapshots", err.Error())
		}
		ports.ReportProgress(call, 2, 3, "snapshot written; running the statement")
		ctx, cancel := context.WithTimeout(call, s.limits.QueryTimeout)
		defer cancel()
		suffix := "; snapshots are disabled"
		var snap any
		if path != "" {
			suffix, snap = "; snapshot: "+path, path
		}
		describe := func(res domain.WriteResult) {
			if res.RowsAffected >= 0 {
				sp.setRows(res.RowsAffected)
			}
			sp.detail = domain.Detail{{Key: "reason", Value: reason}, {Key: "snapshot", Value: snap}}
		}
		out, res, err := s.write(ctx, domain.WriteRequest{Tier: domain.TierDestructive, SQL: query,
			Audit: sealWith(s.auditStatements, sp, describe)}, suffix)
		if err != nil {
			return "", err
		}
		describe(res)
		return out, nil
	})
}

func (s *Service) snapshot(ctx context.Context, reason string) (string, error) {
	if s.d.Snapshots == nil {
		return "", nil
	}
	return s.d.Snapshots.Snapshot(ctx, reason)
}

// Snapshot writes a snapshot on demand.
// Like destructive_query's, it is not cut short by the query deadline.
func (s *Service) Snapshot(ctx context.Context, reason string) (string, error) {
	call := ctx
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
func (s *Service) CreateView(ctx context.Context, r ports.CreateViewRequest) (string, error) {
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
