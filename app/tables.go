package app

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// newTable starts a capped CSV table and, when the caller asked for
// structured results (ports.WithTableSink), keeps its rows as typed values
// too.
func (s *Service) newTable(ctx context.Context, columns []string) *domain.TableWriter {
	w := domain.NewTableWriter(columns, s.limits.MaxResultBytes, s.limits.MaxCellChars)
	if sink := ports.TableSinkOf(ctx); sink != nil {
		d := &domain.TableData{}
		w.Keep(d, columns)
		sink(d)
	}
	return w
}
