package fake

import (
	"context"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Snapshots is a [ports.Snapshotter] that writes nothing: it answers Path
// (or "" for snapshots switched off) or Err, and keeps the reasons.
type Snapshots struct {
	Path string
	Err  error
	// SnapshotFn, when set, answers instead.
	SnapshotFn func(ctx context.Context, reason string) (string, error)

	mu      sync.Mutex
	reasons []string
}

var _ ports.Snapshotter = (*Snapshots)(nil)

// Snapshot records reason and answers Path or Err.
func (s *Snapshots) Snapshot(ctx context.Context, reason string) (string, error) {
	s.mu.Lock()
	s.reasons = append(s.reasons, reason)
	s.mu.Unlock()
	if s.SnapshotFn != nil {
		return s.SnapshotFn(ctx, reason)
	}
	if s.Err != nil {
		return "", s.Err
	}
	return s.Path, nil
}

// Reasons returns the reasons of the snapshots asked for so far.
func (s *Snapshots) Reasons() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reasons...)
}
