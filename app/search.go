package app

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// lineRef ties one searched line back to its row and column. The search
// keeps 8 bytes per line plus one key per row, never the values themselves.
type lineRef struct {
	row int32
	col uint16
}

// SearchText narrows rows with SQL, then matches a pattern over the chosen
// columns with the text searcher.
func (s *Service) SearchText(ctx context.Context, r ports.SearchTextRequest) (string, error) {
	return s.run(ctx, domain.ToolSearchText, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(fmt.Sprintf("-- search_text %s /%s/", r.Table, r.Pattern))
		if s.d.Search == nil {
			return "", domain.Errorf(domain.ErrUnavailable, "no text search engine is configured")
		}
		if r.Pattern == "" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "pattern must not be empty")
		}
		if err := domain.ArgSearchLimit.Check(s.limits, r.Limit); err != nil {
			return "", err
		}
		if err := domain.ArgContextChars.Check(s.limits, r.ContextChars); err != nil {
			return "", err
		}
		d, err := s.d.Catalog.Describe(ctx, r.Table)
		if err != nil {
			return "", err
		}
		cols, err := searchColumns(d, r.Columns)
		if err != nil {
			return "", err
		}
		q := domain.CandidateQuery{Table: d.Name, Columns: cols, Where: r.Where, Limit: s.limits.SearchCandidates}
		if r.KeyColumn != "" {
			if q.KeyColumn = columnNamed(d, r.KeyColumn); q.KeyColumn == "" {
				return "", domain.Errorf(domain.ErrNotFound, "key_column %s is not a column of %s; available: %s", domain.Quote(r.KeyColumn), d.Name, domain.QuoteList(columnNames(d)))
			}
		} else if d.Type == "view" {
			return "", domain.Errorf(domain.ErrInvalidArgument, "views have no rowid; pass key_column to identify rows in the results")
		}
		if w := strings.TrimSpace(r.Where); w != "" {
			sp.setQuery(*sp.query + " WHERE " + w)
		}
		// A search holds whole values in Go (the regexp2 engine 5 times
		// their size): searches run a few at a time (slots.go).
		if err := s.searches.acquire(ctx, domain.FormatSeconds(s.limits.QueryTimeout)); err != nil {
			return "", err
		}
		defer s.searches.release()

		// lines may run on another goroutine than found (ripgrep's stdin
		// writer), so the row bookkeeping is shared under a lock.
		var mu sync.Mutex
		var keys []string
		var refs []lineRef
		var candidates int
		var capped bool
		var cutValues int // values searched in their head only
		var srcErr error
		lines := func(yield func(string) bool) {
			// The lines may be read twice (an engine that could not start
			// hands over to another), so each pass starts afresh.
			mu.Lock()
			keys, refs, cutValues = keys[:0], refs[:0], 0
			mu.Unlock()
			candidates, capped, srcErr = s.d.Catalog.Candidates(ctx, q, func(row []any) bool {
				mu.Lock()
				keys = append(keys, keyText(row[0]))
				rowIndex := int32(len(keys) - 1)
				mu.Unlock()
				if rowIndex > 0 && rowIndex%searchProgressRows == 0 {
					ports.ReportProgress(ctx, float64(rowIndex), float64(q.Limit), fmt.Sprintf("%d candidate rows read", rowIndex))
				}
				for i, v := range row[1:] {
					text, ok := searchable(v)
					if !ok {
						continue
					}
					line, cut := domain.CutSearchLine(domain.SearchLine(text), s.limits.MaxSearchValueBytes)
					mu.Lock()
					refs = append(refs, lineRef{row: rowIndex, col: uint16(i)})
					if cut {
						cutValues++
					}
					mu.Unlock()
					if !yield(line) {
						return false
					}
				}
				return true
			})
		}
		w := s.newTable(ctx, []string{"key", "column", "snippet"})
		total, rowsMatched, lastRow, full := 0, 0, int32(-1), false
		err = s.d.Search.Search(ctx, domain.SearchQuery{Pattern: r.Pattern, IgnoreCase: r.IgnoreCase, FixedStrings: r.FixedStrings}, lines,
			func(m domain.LineMatch) error {
				mu.Lock()
				ref := refs[m.Index]
				key := keys[ref.row]
				mu.Unlock()
				total++
				if ref.row != lastRow {
					rowsMatched, lastRow = rowsMatched+1, ref.row
				}
				if w.Rows() < r.Limit && !full {
					full = !w.Add([]any{key, cols[ref.col], domain.Snippet(m.Text, m.Start, m.End, r.ContextChars)})
				}
				return nil
			})
		if srcErr != nil {
			return "", srcErr
		}
		if err != nil {
			return "", err
		}
		trailer := fmt.Sprintf("# %d of %d matching values in %d rows (%d candidate rows x %d columns scanned)",
			w.Rows(), total, rowsMatched, candidates, len(cols))
		if capped {
			trailer += fmt.Sprintf("; candidate cap of %d rows hit, tighten the WHERE filter", s.limits.SearchCandidates)
		}
		if cutValues > 0 {
			trailer += fmt.Sprintf("; %d values longer than %d bytes were searched in their first %d bytes only (--max-search-value-bytes)",
				cutValues, s.limits.MaxSearchValueBytes, s.limits.MaxSearchValueBytes)
		}
		if w.TruncatedByBytes() {
			trailer += fmt.Sprintf("; output truncated at %d bytes", s.limits.MaxResultBytes)
		}
		sp.setRows(int64(w.Rows()))
		sp.detail = domain.Detail{
			{Key: "pattern", Value: r.Pattern}, {Key: "table", Value: d.Name}, {Key: "columns", Value: cols},
			{Key: "candidates", Value: candidates}, {Key: "capped", Value: capped}, {Key: "matches", Value: total},
			{Key: "ignore_case", Value: r.IgnoreCase}, {Key: "fixed_strings", Value: r.FixedStrings},
		}
		if cutValues > 0 {
			sp.detail = append(sp.detail, domain.Field{Key: "values_cut", Value: cutValues})
		}
		return w.Body() + trailer, nil
	})
}

// searchColumns resolves the requested columns case-insensitively to their
// declared names, or picks the text columns.
func searchColumns(d domain.TableDescription, want []string) ([]string, error) {
	if len(want) > 0 {
		var out, unknown []string
		seen := map[string]bool{}
		for _, w := range want {
			c := columnNamed(d, w)
			if c == "" {
				unknown = append(unknown, w)
				continue
			}
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
		if len(unknown) > 0 {
			return nil, domain.Errorf(domain.ErrNotFound, "unknown column(s) %s in %s; available: %s", domain.QuoteList(unknown), d.Name, domain.QuoteList(columnNames(d)))
		}
		return out, nil
	}
	var out []string
	for _, c := range d.Columns {
		if domain.IsTextColumn(c.Type) {
			out = append(out, c.Name)
		}
	}
	if len(out) == 0 {
		return nil, domain.Errorf(domain.ErrInvalidArgument, "%s has no text columns; pass columns=[...] explicitly", d.Name)
	}
	return out, nil
}

func columnNamed(d domain.TableDescription, name string) string {
	for _, c := range d.Columns {
		if strings.EqualFold(c.Name, name) {
			return c.Name
		}
	}
	return ""
}

func columnNames(d domain.TableDescription) []string {
	out := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		out[i] = c.Name
	}
	return out
}

// searchable turns a cell into the text searched; NULLs and blobs are not
// searched.
func searchable(v any) (string, bool) {
	switch v.(type) {
	case nil, domain.Blob, []byte:
		return "", false
	}
	text, _ := domain.FormatCell(v, 1<<30)
	return text, true
}

func keyText(v any) string {
	text, _ := domain.FormatCell(v, 1<<30)
	return text
}
