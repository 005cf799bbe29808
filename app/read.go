package app

import (
	"context"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// ReadQuery runs one read-only statement and returns capped CSV. Paging
// skips offset rows while stepping; the SQL is never rewritten.
func (s *Service) ReadQuery(ctx context.Context, r domain.ReadQueryRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolReadQuery, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(r.Query)
		if err := domain.ArgQueryLimit.Check(s.limits, r.Limit); err != nil {
			return "", err
		}
		if err := domain.ArgOffset.Check(s.limits, r.Offset); err != nil {
			return "", err
		}
		if strings.TrimSpace(r.Query) == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "query must not be empty: pass one SELECT statement")
		}
		var w *domain.TableWriter
		skipped, more := 0, false
		err := s.d.Statements.Read(ctx, r.Query, func(cols []string) {
			w = s.newTable(sp, cols)
		}, func(row []any) bool {
			if skipped < r.Offset {
				skipped++
				return true
			}
			if w.Rows() == r.Limit {
				more = true
				return false
			}
			return w.Add(row)
		})
		if err != nil {
			return "", err
		}
		t := domain.Trailer{
			Rows: w.Rows(), MoreRows: more, Limit: r.Limit, MaxRows: s.limits.MaxRows,
			Paging: true, NextOffset: r.Offset + w.Rows(),
			CellsCut: w.CellsCut(), MaxCellChars: s.limits.MaxCellChars,
		}
		if w.TruncatedByBytes() {
			t.TruncatedAtBytes = s.limits.MaxResultBytes
		}
		sp.setRows(int64(w.Rows()))
		// A row the byte cap refused exists too: the page was cut either way.
		sp.detail = domain.Detail{{Key: "limit", Value: r.Limit}, {Key: "more_rows", Value: more || w.TruncatedByBytes()}}
		if r.Offset > 0 {
			sp.detail = append(sp.detail, domain.Field{Key: "offset", Value: r.Offset})
		}
		return w.Body() + t.String(), nil
	})
}

// ListTables lists tables and views with their row counts.
func (s *Service) ListTables(ctx context.Context, r domain.ListTablesRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolListTables, func(ctx context.Context, sp *span) (string, error) {
		tables, err := s.d.Schema.Tables(ctx, r.IncludeRowCounts)
		if err != nil {
			return "", err
		}
		w := s.newTable(sp, []string{"name", "type", "system", "rows"})
		for _, t := range tables {
			var rows any
			if t.Rows >= 0 {
				rows = t.Rows
			}
			if !w.Add([]any{t.Name, t.Type, boolInt(t.System()), rows}) {
				break
			}
		}
		sp.setRows(int64(w.Rows()))
		return w.Body() + s.trailer(w).String(), nil
	})
}

// trailer is the plain trailer of an output without a row limit.
func (s *Service) trailer(w *domain.TableWriter) domain.Trailer {
	t := domain.Trailer{Rows: w.Rows(), CellsCut: w.CellsCut(), MaxCellChars: s.limits.MaxCellChars}
	if w.TruncatedByBytes() {
		t.TruncatedAtBytes = s.limits.MaxResultBytes
	}
	return t
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// DescribeTable reports columns, foreign keys, indexes, the row count and the
// CREATE statement of one table or view.
func (s *Service) DescribeTable(ctx context.Context, r domain.DescribeTableRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolDescribeTable, func(ctx context.Context, sp *span) (string, error) {
		table := r.Table
		sp.setQuery(table)
		if strings.TrimSpace(table) == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "table must not be empty; use "+domain.ToolListTables+" to see the names")
		}
		d, err := s.d.Schema.Describe(ctx, table)
		if err != nil {
			return "", err
		}
		sp.setRows(int64(len(d.Columns)))
		return domain.RenderDescription(d, s.limits.MaxResultBytes, s.limits.MaxCellChars), nil
	})
}

// GetSchema returns the stored CREATE statements, hiding server objects
// unless asked.
func (s *Service) GetSchema(ctx context.Context, r domain.GetSchemaRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolGetSchema, func(ctx context.Context, sp *span) (string, error) {
		objs, err := s.d.Schema.Objects(ctx)
		if err != nil {
			return "", err
		}
		out, shown := domain.RenderSchema(objs, r.IncludeSystem, s.limits.MaxResultBytes)
		sp.setRows(int64(shown))
		return out, nil
	})
}
