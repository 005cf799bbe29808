package fake

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Memory is an in-memory [ports.MemoryStore]: the event chain and the
// checkpoints in slices, each append atomic against the head under one
// lock, a checkpoint followed by its seal event, and audit entries sealed
// into Log. Events and Checkpoints may be set directly to play a file
// changed outside the server.
type Memory struct {
	Chain       []domain.Event
	Checkpoints []domain.Checkpoint
	// Err, when set, fails every method.
	Err error
	// Log receives the audit entries the appends seal.
	Log *AuditLog
	// EventsFn, when set, answers Events instead (to play a slow walk).
	EventsFn func(ctx context.Context, checkpoint func(domain.Checkpoint), fn func(domain.Event) bool) (int64, error)
	// Key, when set, signs the head after every append into Signatures,
	// as the SQLite store does with a chain key; Signatures may also be
	// set directly.
	Key        *domain.ChainKey
	Signatures []domain.HeadSignature
	// Retractions are the rows of memory_retractions (retract.go).
	Retractions []domain.Retraction

	mu sync.Mutex
}

var _ ports.MemoryStore = (*Memory)(nil)

func (m *Memory) head() (int64, string) {
	if len(m.Chain) == 0 {
		return 0, domain.Genesis
	}
	e := m.Chain[len(m.Chain)-1]
	return e.ID, e.Hash
}

// Append lets next build the event from the head and keeps it.
func (m *Memory) Append(ctx context.Context, next func(int64, string) (domain.Event, error), audit ports.AuditFunc[domain.Event]) (domain.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return domain.Event{}, err
	}
	e, err := next(m.head())
	if err != nil {
		return domain.Event{}, err
	}
	m.Chain = append(m.Chain, e)
	m.sign()
	seal(m.Log, audit, e)
	return e, nil
}

// Checkpoint lets next build the checkpoint from the head, numbers it,
// keeps it and appends its seal; like the SQLite store, it anchors it to a
// marker first when the latest checkpoint is not followed by its seal.
func (m *Memory) Checkpoint(ctx context.Context, next func(int64, string) (domain.Checkpoint, error), audit ports.AuditFunc[domain.Checkpoint]) (domain.Checkpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return domain.Checkpoint{}, err
	}
	c, err := next(m.head())
	if err != nil {
		return domain.Checkpoint{}, err
	}
	c.ID = int64(len(m.Checkpoints)) + 1
	if m.needsMarker() {
		var marker domain.Event
		if marker, c, err = c.WithSealMarker(); err != nil {
			return domain.Checkpoint{}, err
		}
		m.Chain = append(m.Chain, marker)
	}
	s, err := domain.NewSeal(c)
	if err != nil {
		return domain.Checkpoint{}, err
	}
	m.Checkpoints = append(m.Checkpoints, c)
	m.Chain = append(m.Chain, s)
	m.sign()
	seal(m.Log, audit, c)
	return c, nil
}

func (m *Memory) needsMarker() bool {
	n := len(m.Checkpoints)
	if n == 0 {
		return true
	}
	last := m.Checkpoints[n-1]
	for _, e := range m.Chain {
		if e.ID == last.LastEventID+1 {
			return !domain.IsSealOf(e, last.ID)
		}
	}
	return true
}

// Events walks the checkpoints, then the chain, in id order.
func (m *Memory) Events(ctx context.Context, checkpoint func(domain.Checkpoint), fn func(domain.Event) bool) (int64, error) {
	if m.EventsFn != nil {
		return m.EventsFn(ctx, checkpoint, fn)
	}
	m.mu.Lock()
	events := slices.Clone(m.Chain)
	cps := slices.Clone(m.Checkpoints)
	m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return 0, err
	}
	if checkpoint != nil {
		slices.SortStableFunc(cps, func(a, b domain.Checkpoint) int { return int(min(max(a.ID-b.ID, -1), 1)) })
		for _, c := range cps {
			checkpoint(c)
		}
	}
	want := true
	for _, e := range events {
		if want {
			want = fn(e)
		}
	}
	return int64(len(events)), nil
}

// Resume is what get_resume_context shows, decided as the SQLite store
// decides it (the contract suite holds the two to the same answers).
func (m *Memory) Resume(ctx context.Context, max int, exclude []string) (domain.ResumeState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var st domain.ResumeState
	if err := m.check(ctx); err != nil {
		return st, err
	}
	since := int64(0)
	if n := len(m.Checkpoints); n > 0 {
		cp := m.Checkpoints[n-1]
		st.Checkpoint = &cp
		h, found := m.hashOf(cp.LastEventID)
		st.Anchored = cp.Anchored(h, found)
		st.Coverage = m.coverage(cp)
		since = cp.LastEventID
		for _, e := range m.Chain {
			if e.ID == cp.LastEventID+1 && domain.IsSealOf(e, cp.ID) {
				since++ // the seal, matching or not, is not an event since
			}
		}
	}
	var after []domain.Event
	for _, e := range m.Chain {
		if e.ID > since && !slices.Contains(exclude, e.Kind) && !m.hidden(e.ID) {
			after = append(after, e)
		}
	}
	for _, x := range m.Retractions {
		if x.EventID > since {
			st.Retracted++
		}
	}
	st.Total = len(after)
	if len(after) > max {
		after = after[len(after)-max:]
	}
	st.Events = after
	return st, nil
}

func (m *Memory) hashOf(id int64) (string, bool) {
	for _, e := range m.Chain {
		if e.ID == id {
			return e.Hash, true
		}
	}
	return "", false
}

// coverage finds cp's seal (the event after its head, else the first that
// claims to seal it) and whether a marker or an earlier seal lies at or
// before its head.
func (m *Memory) coverage(cp domain.Checkpoint) domain.Coverage {
	var seal *domain.Event
	for _, e := range m.Chain {
		if e.ID == cp.LastEventID+1 && domain.IsSealOf(e, cp.ID) {
			seal = &e
		}
	}
	for i := 0; seal == nil && i < len(m.Chain); i++ {
		if domain.IsSealOf(m.Chain[i], cp.ID) {
			seal = &m.Chain[i]
		}
	}
	before := false
	for _, e := range m.Chain {
		if seal == nil && e.ID <= cp.LastEventID && isSeal(e) {
			before = true
		}
	}
	return cp.Coverage(seal, before)
}

func (m *Memory) check(ctx context.Context) error {
	if err := timedOut(ctx); err != nil {
		return err
	}
	return m.Err
}

// isSeal is the SQLite store's test for any seal or the marker, in Go.
func isSeal(e domain.Event) bool {
	rest, ok := strings.CutPrefix(e.Content, domain.SealLead)
	return e.Kind == domain.SealKind && (ok && strings.Contains(rest, domain.SealMark) || e.Content == domain.SealMarkerContent)
}
