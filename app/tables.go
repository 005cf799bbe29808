package app

import (
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// newTable starts a capped CSV table and, when the caller keeps tables
// ([Service.KeepingTables]), keeps its rows as typed values too, for the
// call's result.
func (s *Service) newTable(sp *span, columns []string) *domain.TableWriter {
	w := domain.NewTableWriter(columns, s.limits.MaxResultBytes, s.limits.MaxCellChars)
	if sp.keep {
		d := &domain.TableData{}
		w.Keep(d, columns)
		sp.table = d
	}
	return w
}
