package fake

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// sign signs the head with Key, if set. The caller holds m.mu.
func (m *Memory) sign() {
	if m.Key == nil {
		return
	}
	id, hash := m.head()
	m.Signatures = append(m.Signatures, m.Key.Sign(id, hash))
}

// HeadSignature returns the newest of Signatures at or before upTo and
// the hash its event has now.
func (m *Memory) HeadSignature(ctx context.Context, upTo int64) (*domain.HeadSignature, string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return nil, "", false, err
	}
	var latest *domain.HeadSignature
	for i := range m.Signatures {
		if s := m.Signatures[i]; s.EventID <= upTo && (latest == nil || s.EventID > latest.EventID) {
			latest = &s
		}
	}
	if latest == nil {
		return nil, "", false, nil
	}
	hash, found := m.hashOf(latest.EventID)
	return latest, hash, found, nil
}
