package app_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// world is a service over the fakes of package fake: no SQLite, no
// ripgrep, no files. Change the fakes, then call svc.
type world struct {
	db     *fake.Store
	snaps  *fake.Snapshots
	search *fake.Searcher
	clock  *fake.Clock
	limits domain.Limits
	svc    *app.Service
}

// epoch is the fakes' clock's time.
var epoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// newWorld builds the service; tune adjusts the limits first.
func newWorld(t *testing.T, tune ...func(*domain.Limits)) *world {
	t.Helper()
	w := &world{db: fake.NewStore(), snaps: &fake.Snapshots{Path: "/snaps/1.db"}, search: &fake.Searcher{},
		clock: fake.NewClock(epoch), limits: domain.DefaultLimits()}
	for _, f := range tune {
		f(&w.limits)
	}
	require.NoError(t, w.limits.Validate())
	w.svc = app.New(w.deps(), app.Options{Limits: w.limits, Session: "20261201T100000Z-test"})
	return w
}

// deps are the world's ports, for a test that swaps one.
func (w *world) deps() app.Deps {
	return app.Deps{Statements: w.db, Schema: w.db, Views: w.db, Candidates: w.db, Memory: w.db,
		Audit: w.db, Snapshots: w.snaps, Search: w.search, Clock: w.clock, Recall: &fake.Recall{Memory: w.db.Memory}}
}

// rebuild makes a new service over deps (the world's, changed).
func (w *world) rebuild(d app.Deps) {
	w.svc = app.New(d, app.Options{Limits: w.limits, Session: "20261201T100000Z-test"})
}

// onlyEntry is the one audit entry the calls so far left.
func (w *world) onlyEntry(t *testing.T) domain.AuditEntry {
	t.Helper()
	entries := w.db.Entries()
	require.Len(t, entries, 1, "exactly one audit row per call")
	return entries[0]
}

// methods are the names of the fake database's calls, in order.
func (w *world) methods() []string {
	var out []string
	for _, c := range w.db.Calls() {
		out = append(out, c.Method)
	}
	return out
}

// wantKind checks err is a *domain.Error of kind whose message contains
// each of says.
func wantKind(t *testing.T, err error, kind error, says ...string) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, kind)
	var de *domain.Error
	require.ErrorAs(t, err, &de, "the agent only sees *domain.Error")
	for _, s := range says {
		assert.Contains(t, err.Error(), s)
	}
}

// text is a tool call's answer as the agent reads it.
func text(r ports.Result, err error) (string, error) { return r.Text, err }
