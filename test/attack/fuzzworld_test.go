package attack_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// fuzzWorld is the one database and core a fuzzing process works on. A fuzz
// worker is a process of its own that runs input after input, so the world
// is built once per process and put back to the seeded template only when a
// call was allowed to write (or a check failed): a refusal leaves nothing to
// undo, and the checks prove it.
type fuzzWorld struct {
	env      *corpusEnv
	svc      *app.Service
	in       *inspector
	limits   domain.Limits
	pristine []byte
	logs     *logRecorder
	// shadow are the template's real shadow tables, written by their
	// modules, not by statements; vtables the rows of its virtual tables,
	// which the table dump cannot see.
	shadow  map[string]bool
	vtables map[string][]string
	// base is the inspector's dump of the template, baseConns the state of
	// a fresh server's pooled connections.
	base      snapshot
	baseConns []string
	// next is the state the last input left; used says an input ran.
	next *snapshot
	used bool
}

var (
	worldOnce sync.Once
	world     *fuzzWorld
)

// fuzzLimits are the corpus limits with a shorter deadline: runaway inputs
// are common among mutations, and each costs a deadline per tier.
func fuzzLimits() domain.Limits {
	l := corpusLimits()
	l.QueryTimeout = 250 * time.Millisecond
	l.Snapshots = 2
	return l
}

// theWorld returns this process's world, building it on first use.
func theWorld(t *testing.T) *fuzzWorld {
	t.Helper()
	worldOnce.Do(func() { world = buildWorld(t) })
	require.NotNil(t, world, "the fuzz world could not be built")
	return world
}

func buildWorld(t *testing.T) *fuzzWorld {
	data, err := os.ReadFile(seededTemplate(t))
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "fuzz-policy-")
	require.NoError(t, err)
	outside, err := os.MkdirTemp("", "fuzz-outside-")
	require.NoError(t, err)
	w := &fuzzWorld{
		env:       &corpusEnv{Env: &harness.Env{Dir: dir, DBPath: filepath.Join(dir, "test.db")}, outside: outside},
		limits:    fuzzLimits(),
		pristine:  data,
		logs:      &logRecorder{},
		base:      baselineSnapshot(t),
		baseConns: baselineConnState(t),
	}
	w.open(t)
	w.shadow, w.vtables = map[string]bool{}, map[string][]string{}
	rows, err := w.in.db.Query("SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND type IN ('shadow', 'virtual')")
	require.NoError(t, err)
	var virtual []string
	for rows.Next() {
		var name, kind string
		require.NoError(t, rows.Scan(&name, &kind))
		if kind == "shadow" {
			w.shadow[name] = true
		} else {
			virtual = append(virtual, name)
		}
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	require.NotEmpty(t, w.shadow, "the template has FTS5 and R*Tree tables")
	for _, v := range virtual {
		w.vtables[v] = w.virtualRows(t, v)
		require.NotEmpty(t, w.vtables[v], "virtual table %s has rows to lose", v)
	}
	return w
}

// open copies the template over the world's database and starts a core on
// it, wired as cmd/mcp-sqlite-memory wires it, with an inspector beside it.
func (w *fuzzWorld) open(t *testing.T) {
	t.Helper()
	path := w.env.DBPath
	for _, p := range []string{path, path + "-wal", path + "-shm", filepath.Join(w.env.Dir, "test.snapshots")} {
		require.NoError(t, os.RemoveAll(p))
	}
	require.NoError(t, os.WriteFile(path, w.pristine, 0o644))
	ctx := context.Background()
	// The in-process engine serves search_text: a fuzzer must not start a
	// process per input.
	wired, err := wire.Open(ctx, wire.Options{DBPath: path, Limits: w.limits, Version: "fuzz",
		Session: "20260913T101100Z-fuzz", Logger: slog.New(w.logs), Search: regexp2.New()})
	require.NoError(t, err)
	w.svc = wired.Service
	w.env.Store, w.env.Tools = wired.Store, w.svc
	w.env.Statements, w.env.Memory = wired.Deps.Statements, wired.Deps.Memory
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	w.in = &inspector{db: db, env: w.env, dumps: map[string]*sql.Stmt{}}
	// The template's dump stands for the copy until another connection
	// commits, as in inspect.
	require.NoError(t, db.QueryRow("PRAGMA data_version").Scan(&w.in.version))
	base := w.base
	base.Tables, base.Server = maps.Clone(base.Tables), maps.Clone(base.Server)
	w.in.last = &base
}

// restore closes everything and starts again from the template.
func (w *fuzzWorld) restore(t *testing.T) {
	t.Helper()
	require.NoError(t, w.env.Store.Close())
	require.NoError(t, w.in.db.Close())
	w.open(t)
}

// expand fills the corpus placeholders of an input.
func (w *fuzzWorld) expand(q string) string { return w.env.expand(q) }

// virtualRows dumps one virtual table through its module, as the agent
// sees it: every rowid and column value, in rowid order.
func (w *fuzzWorld) virtualRows(t *testing.T, table string) []string {
	t.Helper()
	rows, err := w.in.db.Query("SELECT rowid, * FROM " + sqlIdent(table) + " ORDER BY rowid")
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		out = append(out, fmt.Sprintf("%#v", vals))
	}
	require.NoError(t, rows.Err())
	return out
}

// verifyChain walks the memory chain as verify_chain does, on the core's
// own memory store, without an audit row and with a deadline of its own.
func (w *fuzzWorld) verifyChain(t *testing.T) domain.VerifyResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v := domain.NewChainVerifier()
	total, err := w.env.Memory.Events(ctx, nil, v.Add)
	require.NoError(t, err, "the chain must be readable")
	return v.Result(total)
}

// logRecorder keeps what the core logs at warning level and above: an
// error no adapter translated, an audit row that could not be written.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

// Enabled is true from warnings up.
func (l *logRecorder) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelWarn }

// Handle keeps the record's message and attributes.
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	l.mu.Lock()
	l.msgs = append(l.msgs, b.String())
	l.mu.Unlock()
	return nil
}

// WithAttrs ignores the attributes: the core adds none.
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup ignores the group.
func (l *logRecorder) WithGroup(string) slog.Handler { return l }

// take returns and forgets what was logged.
func (l *logRecorder) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.msgs
	l.msgs = nil
	return out
}

// TestFuzzChecksReadTheDump proves FuzzPolicy's own checks are not empty:
// they find the server's schema entries and the audit row's fields in a real
// dump, and count a changed row.
func TestFuzzChecksReadTheDump(t *testing.T) {
	base := baselineSnapshot(t)
	server := serverSchema(base)
	var names []string
	for _, r := range server {
		names = append(names, dumpValues(r, 3)[2])
	}
	assert.Contains(t, names, "query_log", "the server's tables are found")
	assert.Contains(t, names, "query_errors", "the server's view is found")
	assert.Less(t, len(server), len(base.Tables["sqlite_schema"]), "user objects are not server objects")

	last := dumpValues(base.Log[len(base.Log)-1], 9)
	require.Len(t, last, 9)
	assert.Equal(t, []string{"read_query", "SELECT * FROM nope", "0"}, []string{last[4], last[5], last[6]})
	assert.Contains(t, last[8], "no such table", "the audit row's error")

	bulk := base.Tables["bulk"]
	require.Len(t, bulk, 60)
	after := slices.Clone(bulk)
	after[3] += "x"
	assert.Equal(t, []string{bulk[3]}, removed(bulk, after), "one changed row")
	assert.Len(t, removed(bulk, nil), 60, "every row deleted")
	assert.Empty(t, removed(bulk, append(after, bulk[3])), "only added rows")
}
