package app

import (
	"context"
	"strconv"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// SearchMemory ranks the memory events and checkpoint summaries that match
// the query (BM25 over the server's full-text index, newer first among
// equals) and returns them as CSV with snippets, under the same caps and
// deadline as every call.
func (s *Service) SearchMemory(ctx context.Context, r domain.SearchMemoryRequest) (ports.Result, error) {
	return s.run(ctx, domain.ToolSearchMemory, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(r.Query)
		return s.searchMemory(ctx, sp, r)
	})
}

// searchMemory runs search_memory for the tool and the recall prompt.
func (s *Service) searchMemory(ctx context.Context, sp *span, r domain.SearchMemoryRequest) (string, error) {
	q, err := s.checkMemorySearch(r)
	if err != nil {
		return "", err
	}
	w := s.newTable(sp, domain.MemoryHitColumns)
	res, err := s.d.Recall.Search(ctx, q, func(h domain.MemoryHit) { w.Add(h.Row()) })
	if err != nil {
		return "", err
	}
	t := s.trailer(w)
	t.MoreRows, t.Limit, t.MaxRows = res.More, r.Limit, s.limits.MaxRows
	out := w.Body() + t.String()
	if res.Unranked {
		out += "\n# more than " + strconv.FormatInt(res.Ranked, 10) + " events match; the newest " + strconv.FormatInt(res.Ranked, 10) +
			" (and every checkpoint) were ranked, whatever the filters: add a rarer word, or use " + domain.ToolSearchText + " on memory_events with a where on ts, to reach older ones"
	}
	if res.Retracted > 0 {
		out += "\n# " + domain.RetractedLine(int(res.Retracted)) + " (" + domain.ToolRetractEvent + " withdrew them)"
	}
	if res.Lag > 0 {
		out += "\n# " + strconv.FormatInt(res.Lag, 10) + " newer events are not in the search index yet (another program appended them); a restart of the server indexes them"
	}
	sp.setRows(int64(w.Rows()))
	sp.detail = domain.Detail{{Key: "terms", Value: len(q.Query.Terms)}, {Key: "more", Value: res.More},
		{Key: "matched", Value: res.Matched}, {Key: "ranked", Value: res.Ranked}, {Key: "index_lag", Value: res.Lag}}
	if res.Unranked {
		sp.detail = append(sp.detail, domain.Detail{{Key: "unranked", Value: true}}...)
	}
	if res.Retracted > 0 {
		sp.detail = append(sp.detail, domain.Detail{{Key: "retracted", Value: res.Retracted}}...)
	}
	return out, nil
}

// checkMemorySearch checks search_memory's arguments.
func (s *Service) checkMemorySearch(r domain.SearchMemoryRequest) (domain.MemorySearch, error) {
	if s.d.Recall == nil {
		return domain.MemorySearch{}, domain.Errorf(domain.ErrUnavailable, "this server has no memory search index")
	}
	if err := domain.ArgMemoryLimit.Check(s.limits, r.Limit); err != nil {
		return domain.MemorySearch{}, err
	}
	if len(r.Kinds) > domain.MaxMemoryKinds {
		return domain.MemorySearch{}, domain.Errorf(domain.ErrInvalidArgument, "kinds lists %d kinds; at most %d are taken", len(r.Kinds), domain.MaxMemoryKinds)
	}
	q, err := domain.ParseMemoryQuery(r.Query)
	if err != nil {
		return domain.MemorySearch{}, err
	}
	since, err := domain.ParseSince(r.Since)
	if err != nil {
		return domain.MemorySearch{}, err
	}
	var kinds []string
	for _, k := range r.Kinds {
		if k = domain.StripSpace(k); k != "" {
			kinds = append(kinds, k)
		}
	}
	return domain.MemorySearch{Query: q, Kinds: kinds, Session: domain.StripSpace(r.Session), Since: since, Limit: r.Limit}, nil
}
