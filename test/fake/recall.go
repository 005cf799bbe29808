package fake

import (
	"context"
	"slices"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Recall is a [ports.MemoryRecall] over a [Memory]: a search finds the
// events (seals left out) and checkpoint summaries holding any of the
// query's terms as a case-folded substring, the ones holding more terms
// first, then the newer; enough for the core's bookkeeping, not BM25.
// It fails with the memory's Err.
type Recall struct {
	Memory *Memory
}

var _ ports.MemoryRecall = (*Recall)(nil)

// Search scores every event and checkpoint by the terms it holds.
func (r *Recall) Search(ctx context.Context, q domain.MemorySearch, hit func(domain.MemoryHit)) (domain.MemorySearchResult, error) {
	m := r.Memory
	m.mu.Lock()
	defer m.mu.Unlock()
	var res domain.MemorySearchResult
	if err := m.check(ctx); err != nil {
		return res, err
	}
	type scored struct {
		h     domain.MemoryHit
		terms int
		order int
	}
	var all []scored
	score := func(text string) int {
		n := 0
		for _, t := range q.Query.Terms {
			if strings.Contains(strings.ToLower(text), strings.ToLower(strings.TrimRight(t, "*"))) {
				n++
			}
		}
		return n
	}
	keep := func(h domain.MemoryHit) bool {
		return (len(q.Kinds) == 0 || slices.Contains(q.Kinds, h.Kind)) && (q.Session == "" || h.Session == q.Session) && h.TS >= q.Since
	}
	for i, e := range m.Chain {
		if m.hidden(e.ID) {
			if m.retraction(e.ID) != nil && score(domain.IndexedText(e)) > 0 {
				res.Retracted++
			}
			continue
		}
		h := domain.MemoryHit{Source: domain.SourceEvent, ID: e.ID, TS: e.TS, Kind: e.Kind, Session: e.Session, Snippet: e.Content}
		if n := score(domain.IndexedText(e)); n > 0 && keep(h) {
			all = append(all, scored{h, n, i})
		}
	}
	for i, c := range m.Checkpoints {
		h := domain.MemoryHit{Source: domain.SourceCheckpoint, ID: c.ID, TS: c.TS, Kind: domain.SourceCheckpoint, Session: c.Session, Snippet: c.Summary}
		if n := score(c.Summary); n > 0 && keep(h) {
			all = append(all, scored{h, n, len(m.Chain) + i})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		if a.terms != b.terms {
			return b.terms - a.terms
		}
		return b.order - a.order
	})
	res.Matched, res.Ranked = int64(len(all)), int64(len(all))
	if len(all) > q.Limit {
		all, res.More = all[:q.Limit], true
	}
	for _, s := range all {
		hit(s.h)
	}
	return res, nil
}

// Event returns the event with that id.
func (r *Recall) Event(ctx context.Context, id int64) (domain.Event, error) {
	m := r.Memory
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return domain.Event{}, err
	}
	for _, e := range m.Chain {
		if e.ID == id {
			return e, nil
		}
	}
	return domain.Event{}, domain.Errorf(domain.ErrNotFound, "there is no event %d", id)
}

// Values returns the distinct kinds or sessions starting with prefix
// among the newest domain.RecallScan events, sorted.
func (r *Recall) Values(ctx context.Context, field domain.RecallField, prefix string, max int) ([]string, bool, error) {
	m := r.Memory
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	for i := len(m.Chain) - 1; i >= 0 && i >= len(m.Chain)-domain.RecallScan; i-- {
		v := m.Chain[i].Kind
		if field == domain.RecallSession {
			v = m.Chain[i].Session
		}
		if strings.HasPrefix(v, prefix) {
			seen[v] = true
		}
	}
	var out []string
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	if len(out) > max {
		return out[:max], true, nil
	}
	return out, false, nil
}
