package wire_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/schema"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
)

func open(t *testing.T, o wire.Options) *wire.Wiring {
	t.Helper()
	if o.Limits == (domain.Limits{}) {
		o.Limits = domain.DefaultLimits()
	}
	w, err := wire.Open(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(w.Close)
	return w
}

func TestReadWriteModeAuditsIntoTheDatabase(t *testing.T) {
	w := open(t, wire.Options{DBPath: filepath.Join(t.TempDir(), "m.db"), Session: "s"})
	assert.Same(t, w.Store, w.AuditStore)
	assert.IsType(t, &sqlite.AuditSink{}, w.Deps.Audit)
	assert.NotNil(t, w.Deps.Snapshots)
	assert.True(t, w.Memory)
	for _, p := range []any{w.Deps.Statements, w.Deps.Views, w.Deps.Memory} {
		sealer, ok := p.(ports.AuditSealer)
		require.True(t, ok, "%T", p)
		assert.True(t, sealer.Seals(w.Deps.Audit), "%T: the audit log is in the database written, so writes seal their rows", p)
	}
	assert.IsType(t, &schema.Reader{}, w.Deps.Schema)
	assert.IsType(t, &sqlite.CandidateSource{}, w.Deps.Candidates)
}

func TestReadOnlyModeAuditsToStderrOrTheAuditDB(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	s, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	var stderr bytes.Buffer
	w := open(t, wire.Options{DBPath: db, ReadOnly: true, Session: "s", Stderr: &stderr})
	assert.Nil(t, w.AuditStore, "no SQLite file holds the audit log")
	assert.Nil(t, w.Deps.Snapshots, "read-only mode takes no snapshots")
	_, err = w.Service.ListTables(context.Background(), domain.ListTablesRequest{})
	require.NoError(t, err)
	assert.Contains(t, stderr.String(), `"tool": "list_tables"`, "one JSON line per call on stderr")

	checked := ""
	audit := filepath.Join(dir, "audit.db")
	w = open(t, wire.Options{DBPath: db, ReadOnly: true, Session: "s", AuditDB: audit,
		CheckAuditDB: func(db string, snapDirs []string, a string) (string, error) {
			checked = a
			assert.Len(t, snapDirs, 2)
			return a, nil
		}})
	assert.Equal(t, audit, checked, "the audit path is vetted before it is opened")
	require.NotNil(t, w.AuditStore)
	assert.NotSame(t, w.Store, w.AuditStore)
	assert.True(t, sqlite.NewStatementRunner(w.AuditStore).Seals(w.Deps.Audit), "the audit sink writes into the audit database")
	assert.False(t, w.Deps.Statements.(ports.AuditSealer).Seals(w.Deps.Audit), "writes to the database cannot seal rows of another file")
}

func TestSearcherWithoutRipgrep(t *testing.T) {
	var logs bytes.Buffer
	s := wire.Searcher(filepath.Join(t.TempDir(), "no-rg-here"), slog.New(slog.NewTextHandler(&logs, nil)))
	assert.Equal(t, "regexp2", s.Name())
	assert.Contains(t, logs.String(), "ripgrep not found")
}

func TestSearcherFallsBackFromRipgrep(t *testing.T) {
	rg := contract.RequireRg(t)
	s := wire.Searcher(rg, slog.New(slog.DiscardHandler))
	assert.Equal(t, "ripgrep (falls back to regexp2)", s.Name())
}

func TestOverridesReplaceOnlyWhatTheyName(t *testing.T) {
	sink := &recorder{}
	w := open(t, wire.Options{DBPath: filepath.Join(t.TempDir(), "m.db"), Session: "s", Audit: sink,
		WrapSnapshots: func(s ports.Snapshotter) ports.Snapshotter { return wrapped{s} }})
	assert.Same(t, sink, w.Deps.Audit)
	assert.IsType(t, wrapped{}, w.Deps.Snapshots)
	assert.IsType(t, &sqlite.StatementRunner{}, w.Deps.Statements)
	assert.False(t, w.Deps.Statements.(ports.AuditSealer).Seals(sink), "a replaced sink gets its rows recorded after each write")
}

type recorder struct{ n int }

func (r *recorder) Record(context.Context, domain.AuditEntry) error { r.n++; return nil }

type wrapped struct{ ports.Snapshotter }
