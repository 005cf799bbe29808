package fake

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Retract appends the retraction of event target, as the SQLite store
// does: the event must exist, one retracted already is left as it is,
// next decides the rest, and the retraction is kept in Retractions beside
// the chain.
func (m *Memory) Retract(ctx context.Context, target int64, next func(int64, string, domain.Event) (domain.Event, domain.Retraction, error), audit ports.AuditFunc[domain.Retraction]) (domain.Retraction, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return domain.Retraction{}, false, err
	}
	var t *domain.Event
	for i := range m.Chain {
		if m.Chain[i].ID == target {
			t = &m.Chain[i]
		}
	}
	if t == nil {
		return domain.Retraction{}, false, domain.Errorf(domain.ErrNotFound, "there is no event %d", target)
	}
	if x := m.retraction(target); x != nil {
		return *x, false, nil
	}
	id, hash := m.head()
	e, x, err := next(id, hash, *t)
	if err != nil {
		return domain.Retraction{}, false, err
	}
	m.Chain = append(m.Chain, e)
	m.Retractions = append(m.Retractions, x)
	m.sign()
	seal(m.Log, audit, x)
	return x, true, nil
}

// retraction is event id's retraction, nil when it has none.
func (m *Memory) retraction(id int64) *domain.Retraction {
	for i := range m.Retractions {
		if m.Retractions[i].EventID == id {
			return &m.Retractions[i]
		}
	}
	return nil
}

// hidden reports whether the memory tools leave event id out: it is
// retracted, or a retraction.
func (m *Memory) hidden(id int64) bool {
	for _, x := range m.Retractions {
		if x.EventID == id || x.RetractionID == id {
			return true
		}
	}
	return false
}

// Retraction returns event id's retraction, if it has one.
func (r *Recall) Retraction(ctx context.Context, id int64) (domain.Retraction, bool, error) {
	m := r.Memory
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return domain.Retraction{}, false, err
	}
	if x := m.retraction(id); x != nil {
		return *x, true, nil
	}
	return domain.Retraction{}, false, nil
}
