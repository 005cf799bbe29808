package attack_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the inspector's own, independent connection

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// inspector reads the database over a connection of its own, opened
// read-only and outside the code under test, so what it reports does not
// depend on the policy it checks.
type inspector struct {
	db  *sql.DB
	env *corpusEnv
	// dumps holds the prepared dump statement per schema_version: compiling
	// it is a good part of a snapshot's cost.
	dumps map[string]*sql.Stmt
	// last is the previous snapshot and version the data_version it was
	// taken at. data_version changes whenever another connection commits,
	// so while it stands still the tables are as last dumped.
	last    *snapshot
	version int64
}

// inspect returns an inspector of a fresh copy of the template. Every copy
// holds what the first one held, so instead of dumping it again the
// inspector starts from that first dump (any difference would show as a
// change at the first check, never hide one).
func inspect(t *testing.T, env *corpusEnv) *inspector {
	t.Helper()
	base := baselineSnapshot(t)
	in := newInspector(t, env)
	require.NoError(t, in.db.QueryRow("PRAGMA data_version").Scan(&in.version))
	base.Tables, base.Server = maps.Clone(base.Tables), maps.Clone(base.Server)
	in.last = &base
	return in
}

var (
	baseSnapOnce sync.Once
	baseSnap     snapshot
)

// baselineSnapshot is the full dump of a fresh copy of the template.
func baselineSnapshot(t *testing.T) snapshot {
	t.Helper()
	baseSnapOnce.Do(func() {
		env := fresh(t)
		baseSnap = newInspector(t, env).snapshot(t)
	})
	require.NotNil(t, baseSnap.Tables, "the baseline dump could not be taken")
	return baseSnap
}

func newInspector(t *testing.T, env *corpusEnv) *inspector {
	t.Helper()
	u := url.URL{Scheme: "file", Path: env.DBPath, RawQuery: "mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return &inspector{db: db, env: env, dumps: map[string]*sql.Stmt{}}
}

// serverTables are compared apart from user tables: query_log grows by the
// calls' own audit rows.
var serverTables = []string{"memory_events", "memory_checkpoints", "query_log"}

// snapshot is everything a refused call must leave as it was.
type snapshot struct {
	Header  []string            // file header fields, journal mode included
	Tables  map[string][]string // every row of every table, sqlite_schema included
	Server  map[string][]string // memory_events and memory_checkpoints
	Log     []string            // query_log rows, oldest first
	Files   []string            // files under the database's folder
	Outside []string            // files in the folder the ATTACH cases aim at
}

func (in *inspector) snapshot(t *testing.T) snapshot {
	t.Helper()
	var version int64
	require.NoError(t, in.db.QueryRow("PRAGMA data_version").Scan(&version))
	if in.last != nil && version == in.version {
		s := *in.last
		s.Tables, s.Server = maps.Clone(s.Tables), maps.Clone(s.Server)
		s.Files, s.Outside = listFiles(t, in.env.Dir), listFiles(t, in.env.outside)
		return s
	}
	s := snapshot{Tables: map[string][]string{}, Server: map[string][]string{}}
	header := make([]any, len(headerFields))
	ptrs := make([]any, len(header))
	for i := range header {
		ptrs[i] = &header[i]
	}
	require.NoError(t, in.db.QueryRow(headerQuery).Scan(ptrs...))
	for i, f := range headerFields {
		s.Header = append(s.Header, fmt.Sprintf("%s=%v", f, header[i]))
	}
	schemaKey := s.Header[slices.Index(headerFields, "schema_version")]
	dump, ok := in.dumps[schemaKey]
	if !ok {
		var err error
		dump, err = in.db.Prepare(in.dumpQuery(t))
		require.NoError(t, err)
		in.dumps[schemaKey] = dump
	}
	rows, err := dump.Query()
	require.NoError(t, err)
	for rows.Next() {
		var name string
		var all sql.NullString
		var rowid bool
		require.NoError(t, rows.Scan(&name, &rowid, &all))
		var dump []string
		if all.Valid {
			dump = strings.Split(all.String, "\x1e\x1f")
			if !rowid {
				slices.Sort(dump) // no rowid: order by content
			}
		}
		switch {
		case name == "query_log":
			s.Log = dump
		case slices.Contains(serverTables, name):
			s.Server[name] = dump
		default:
			s.Tables[name] = dump
		}
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	s.Files = listFiles(t, in.env.Dir)
	s.Outside = listFiles(t, in.env.outside)
	last := s
	last.Tables, last.Server = maps.Clone(s.Tables), maps.Clone(s.Server)
	in.last, in.version = &last, version
	return s
}

// headerFields are the database header values a refused call must keep.
var headerFields = []string{"user_version", "application_id", "schema_version", "page_size", "auto_vacuum", "encoding", "journal_mode"}

var headerQuery = func() string {
	var cols []string
	for _, f := range headerFields {
		cols = append(cols, "(SELECT * FROM pragma_"+f+")")
	}
	return "SELECT " + strings.Join(cols, ", ")
}()

// dumpQuery returns one query that dumps every table (sqlite_schema, shadow
// tables and the server tables included): one row per table with its name,
// whether it has a rowid, and its rows, one line each. Every value is given
// exactly, as its storage class, its length in bytes and its bytes (a real
// as quote() spells it, which round-trips). The query depends only on the
// tables and their columns.
func (in *inspector) dumpQuery(t *testing.T) string {
	t.Helper()
	var schema string
	require.NoError(t, in.db.QueryRow(`SELECT group_concat(name || char(29) || wr || char(29) || cols, char(28)) FROM (
  SELECT l.name, l.wr, (SELECT group_concat(x.name, char(30)) FROM pragma_table_xinfo(l.name) x) AS cols
  FROM pragma_table_list l WHERE l.schema = 'main' AND l.type IN ('table', 'shadow') ORDER BY l.name)`).Scan(&schema))
	var parts []string
	for _, table := range strings.Split(schema, "\x1c") {
		f := strings.Split(table, "\x1d")
		name, rowid := f[0], f[1] == "0"
		var exprs []string
		order := ""
		if rowid {
			exprs, order = append(exprs, "rowid"), " ORDER BY rowid"
		}
		for _, c := range strings.Split(f[2], "\x1e") {
			q := sqlIdent(c)
			exprs = append(exprs, "typeof("+q+") || coalesce(length(CAST("+q+" AS BLOB)), '') || ':' || CASE typeof("+q+") WHEN 'real' THEN quote("+q+") ELSE coalesce(CAST("+q+" AS BLOB), '') END")
		}
		parts = append(parts, fmt.Sprintf("SELECT %s, %t, (SELECT group_concat(r, char(30, 31)) FROM (SELECT %s AS r FROM %s%s))",
			sqlString(name), rowid, strings.Join(exprs, " || '|' || "), sqlIdent(name), order))
	}
	return strings.Join(parts, "\nUNION ALL ")
}

// listFiles lists the files under dir, relative to it. The -wal and -shm
// files come and go with connections and are left out.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !strings.HasSuffix(rel, "-wal") && !strings.HasSuffix(rel, "-shm") {
			out = append(out, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// lastAudit returns the newest query_log row's tool, ok flag and error.
func (in *inspector) lastAudit(t *testing.T) (tool string, ok bool, msg string) {
	t.Helper()
	var e sql.NullString
	require.NoError(t, in.db.QueryRow("SELECT tool, ok, error FROM query_log ORDER BY id DESC LIMIT 1").Scan(&tool, &ok, &e))
	return tool, ok, e.String
}

// check compares the database after a call with before it. A refused call
// leaves every table as it was; any call leaves the server tables, the
// header and the files alone, but for audit rows and snapshots.
func check(t *testing.T, level string, before, after snapshot, refused bool, auditRows int, snapshots bool) {
	t.Helper()
	if refused {
		assert.Equal(t, before.Header, after.Header, "%s: file header changed", level)
		for name, rows := range before.Tables {
			sameRows(t, rows, after.Tables[name], level+": table "+name)
		}
		assert.Len(t, after.Tables, len(before.Tables), "%s: tables were created or dropped", level)
	} else {
		assert.Equal(t, before.Header[len(before.Header)-1], after.Header[len(after.Header)-1], "%s: journal mode changed", level)
	}
	for name, rows := range before.Server {
		sameRows(t, rows, after.Server[name], level+": server table "+name)
	}
	if assert.Len(t, after.Log, len(before.Log)+auditRows, "%s: query_log must grow by the calls' own audit rows only: %q", level, added(before.Log, after.Log)) {
		sameRows(t, before.Log, after.Log[:len(before.Log)], level+": existing query_log rows")
	}
	files := after.Files
	if snapshots {
		files = slices.DeleteFunc(slices.Clone(files), func(f string) bool { return strings.HasPrefix(f, "test.snapshots"+string(filepath.Separator)) })
	}
	assert.Equal(t, before.Files, files, "%s: files appeared or vanished next to the database", level)
	assert.Empty(t, after.Outside, "%s: files appeared outside the database's folder", level)
}

// connState is what the pooled agent connections answer about themselves:
// the next call runs on them, so an attack must not have changed them.
func connState(t *testing.T, db *sqlite.Store) []string {
	t.Helper()
	store := sqlite.NewStatementRunner(db)
	var out []string
	ask := func(tier domain.Tier, q string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var got []string
		collect := func(r []any) bool { got = append(got, fmt.Sprint(r...)); return true }
		var err error
		if tier == domain.TierRead {
			err = store.Read(ctx, q, func([]string) {}, collect)
		} else {
			_, err = store.Write(ctx, domain.WriteRequest{Tier: tier, SQL: q}, func([]string) {}, collect)
		}
		if err != nil {
			return "error: " + err.Error()
		}
		return strings.Join(got, ",")
	}
	for _, tier := range []domain.Tier{domain.TierRead, domain.TierWrite} {
		out = append(out, tier.Tool()+" "+ask(tier, connSettingsQuery))
		// These two have no table-valued function.
		for _, p := range []string{"wal_autocheckpoint", "mmap_size"} {
			out = append(out, fmt.Sprintf("%s %s=%s", tier.Tool(), p, ask(tier, "PRAGMA "+p)))
		}
		// Defensive mode is what refuses direct writes to real shadow tables;
		// its own message is the contract here.
		// No case drops docs, so docs_data is always there.
		defensive := ask(tier, "DELETE FROM docs_data WHERE 0")
		out = append(out, fmt.Sprintf("%s defensive=%v", tier.Tool(), strings.Contains(defensive, "may not be modified")))
	}
	return out
}

// connSettingsQuery reads, in one statement, the settings of the connection
// it runs on that an attack could try to change for the next call.
var connSettingsQuery = func() string {
	var cols []string
	for _, p := range []string{"query_only", "foreign_keys", "journal_mode", "synchronous", "busy_timeout", "cache_size", "temp_store", "max_page_count"} {
		cols = append(cols, "'"+p+"=' || (SELECT * FROM pragma_"+p+")")
	}
	return "SELECT " + strings.Join(cols, " || ' ' || ")
}()

var (
	baselineOnce  sync.Once
	baselineState []string
)

// baselineConnState is the state of a fresh server's pooled connections;
// every server of the corpus starts the same way.
func baselineConnState(t *testing.T) []string {
	t.Helper()
	baselineOnce.Do(func() { baselineState = connState(t, fresh(t).Store) })
	require.NotEmpty(t, baselineState)
	for _, s := range baselineState {
		require.NotContains(t, s, "error", "the connection-state probe must work, or it would prove nothing")
	}
	return baselineState
}

// kindName names an error's domain kind for failure messages.
func kindName(err error) string {
	for _, k := range []error{domain.ErrPolicy, domain.ErrInvalidArgument, domain.ErrSQLite, domain.ErrTimeout, domain.ErrGuard, domain.ErrNotFound, domain.ErrConflict} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	if err == nil {
		return "allowed"
	}
	return fmt.Sprintf("untyped %T", err)
}

// sameRows asserts two dumps are equal, reporting only the rows that differ.
func sameRows(t *testing.T, before, after []string, what string) {
	t.Helper()
	if slices.Equal(before, after) {
		return
	}
	gone, come := added(after, before), added(before, after)
	if len(gone) > 5 {
		gone = append(gone[:5], "...")
	}
	if len(come) > 5 {
		come = append(come[:5], "...")
	}
	assert.Fail(t, what+" changed", "%d rows before, %d after\nremoved: %q\nadded: %q", len(before), len(after), gone, come)
}
