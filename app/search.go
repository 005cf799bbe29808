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
// columns with the text searcher: checkSearch resolves what to search,
// a searchRun feeds the candidate values to the searcher and collects the
// matches, and its trailer and detail report them.
func (s *Service) SearchText(ctx context.Context, r domain.SearchTextRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolSearchText, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(fmt.Sprintf("-- "+domain.ToolSearchText+" %s /%s/", r.Table, r.Pattern))
		q, err := s.checkSearch(ctx, r)
		if err != nil {
			return "", err
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

		run := &searchRun{s: s, q: q, limit: r.Limit, contextChars: r.ContextChars, lastRow: -1,
			w: s.newTable(sp, []string{"key", "column", "snippet"})}
		err = s.d.Search.Search(ctx, domain.SearchQuery{Pattern: r.Pattern, IgnoreCase: r.IgnoreCase, FixedStrings: r.FixedStrings},
			func(yield func(string) bool) { run.lines(ctx, yield) }, run.found)
		if run.srcErr != nil {
			return "", run.srcErr
		}
		if err != nil {
			return "", err
		}
		sp.setRows(int64(run.w.Rows()))
		sp.detail = run.detail(r)
		return run.w.Body() + run.trailer(), nil
	})
}

// checkSearch checks a search's arguments and resolves its table, columns
// and key into the query for its candidate rows.
func (s *Service) checkSearch(ctx context.Context, r domain.SearchTextRequest) (domain.CandidateQuery, error) {
	if s.d.Search == nil {
		return domain.CandidateQuery{}, domain.Errorf(domain.ErrUnavailable, "no text search engine is configured")
	}
	if r.Pattern == "" {
		return domain.CandidateQuery{}, domain.Errorf(domain.ErrInvalidArgument, "pattern must not be empty")
	}
	if err := domain.ArgSearchLimit.Check(s.limits, r.Limit); err != nil {
		return domain.CandidateQuery{}, err
	}
	if err := domain.ArgContextChars.Check(s.limits, r.ContextChars); err != nil {
		return domain.CandidateQuery{}, err
	}
	d, err := s.d.Schema.Describe(ctx, r.Table)
	if err != nil {
		return domain.CandidateQuery{}, err
	}
	cols, err := searchColumns(d, r.Columns)
	if err != nil {
		return domain.CandidateQuery{}, err
	}
	q := domain.CandidateQuery{Table: d.Name, Columns: cols, Where: r.Where, Limit: s.limits.SearchCandidates}
	if r.KeyColumn != "" {
		if q.KeyColumn = columnNamed(d, r.KeyColumn); q.KeyColumn == "" {
			return domain.CandidateQuery{}, domain.Errorf(domain.ErrNotFound, "key_column %s is not a column of %s; available: %s", domain.Quote(r.KeyColumn), d.Name, domain.QuoteList(columnNames(d)))
		}
	} else if d.Type == "view" {
		return domain.CandidateQuery{}, domain.Errorf(domain.ErrInvalidArgument, "views have no rowid; pass key_column to identify rows in the results")
	}
	return q, nil
}

// searchRun is one search's bookkeeping. lines may run on another
// goroutine than found (ripgrep's stdin writer), so the row bookkeeping
// (keys, refs, cutValues) is shared under mu; the rest is read once the
// search has returned.
type searchRun struct {
	s                   *Service
	q                   domain.CandidateQuery
	limit, contextChars int

	mu        sync.Mutex
	keys      []string  // each candidate row's key
	refs      []lineRef // each searched line's row and column
	cutValues int       // values searched in their head only

	candidates int
	capped     bool
	srcErr     error

	w                  *domain.TableWriter
	total, rowsMatched int
	lastRow            int32
	full               bool
}

// lines reads the candidate rows and yields each searchable value as one
// line. The lines may be read twice (an engine that could not start hands
// over to another), so each pass starts afresh.
func (sr *searchRun) lines(ctx context.Context, yield func(string) bool) {
	sr.mu.Lock()
	sr.keys, sr.refs, sr.cutValues = sr.keys[:0], sr.refs[:0], 0
	sr.mu.Unlock()
	sr.candidates, sr.capped, sr.srcErr = sr.s.d.Candidates.Candidates(ctx, sr.q, func(row []any) bool {
		sr.mu.Lock()
		sr.keys = append(sr.keys, keyText(row[0]))
		rowIndex := int32(len(sr.keys) - 1)
		sr.mu.Unlock()
		if rowIndex > 0 && rowIndex%searchProgressRows == 0 {
			ports.ReportProgress(ctx, float64(rowIndex), float64(sr.q.Limit), fmt.Sprintf("%d candidate rows read", rowIndex))
		}
		for i, v := range row[1:] {
			text, ok := searchable(v)
			if !ok {
				continue
			}
			line, cut := domain.CutSearchLine(domain.SearchLine(text), sr.s.limits.MaxSearchValueBytes)
			sr.mu.Lock()
			sr.refs = append(sr.refs, lineRef{row: rowIndex, col: uint16(i)})
			if cut {
				sr.cutValues++
			}
			sr.mu.Unlock()
			if !yield(line) {
				return false
			}
		}
		return true
	})
}

// found counts one match and adds its snippet while the table has room.
func (sr *searchRun) found(m domain.LineMatch) error {
	sr.mu.Lock()
	ref := sr.refs[m.Index]
	key := sr.keys[ref.row]
	sr.mu.Unlock()
	sr.total++
	if ref.row != sr.lastRow {
		sr.rowsMatched, sr.lastRow = sr.rowsMatched+1, ref.row
	}
	if sr.w.Rows() < sr.limit && !sr.full {
		sr.full = !sr.w.Add([]any{key, sr.q.Columns[ref.col], domain.Snippet(m.Text, m.Start, m.End, sr.contextChars)})
	}
	return nil
}

// trailer counts what was shown, matched and scanned, and says what cut
// the search short.
func (sr *searchRun) trailer() string {
	l := sr.s.limits
	trailer := fmt.Sprintf("# %d of %d matching values in %d rows (%d candidate rows x %d columns scanned)",
		sr.w.Rows(), sr.total, sr.rowsMatched, sr.candidates, len(sr.q.Columns))
	if sr.capped {
		trailer += fmt.Sprintf("; candidate cap of %d rows hit, tighten the WHERE filter", l.SearchCandidates)
	}
	if sr.cutValues > 0 {
		trailer += fmt.Sprintf("; %d values longer than %d bytes were searched in their first %d bytes only (--max-search-value-bytes)",
			sr.cutValues, l.MaxSearchValueBytes, l.MaxSearchValueBytes)
	}
	if sr.w.TruncatedByBytes() {
		trailer += fmt.Sprintf("; output truncated at %d bytes", l.MaxResultBytes)
	}
	return trailer
}

// detail is the search's audit detail.
func (sr *searchRun) detail(r domain.SearchTextRequest) domain.Detail {
	d := domain.Detail{
		{Key: "pattern", Value: r.Pattern}, {Key: "table", Value: sr.q.Table}, {Key: "columns", Value: sr.q.Columns},
		{Key: "candidates", Value: sr.candidates}, {Key: "capped", Value: sr.capped}, {Key: "matches", Value: sr.total},
		{Key: "ignore_case", Value: r.IgnoreCase}, {Key: "fixed_strings", Value: r.FixedStrings},
	}
	if sr.cutValues > 0 {
		d = append(d, domain.Field{Key: "values_cut", Value: sr.cutValues})
	}
	return d
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
