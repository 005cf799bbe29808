package attack_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
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
}

func newInspector(t *testing.T, env *corpusEnv) *inspector {
	t.Helper()
	u := url.URL{Scheme: "file", Path: env.DBPath, RawQuery: "mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return &inspector{db: db, env: env}
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
	s := snapshot{Tables: map[string][]string{}, Server: map[string][]string{}}
	for _, p := range []string{"user_version", "application_id", "schema_version", "page_size", "auto_vacuum", "encoding", "journal_mode"} {
		var v string
		require.NoError(t, in.db.QueryRow("PRAGMA "+p).Scan(&v), p)
		s.Header = append(s.Header, p+"="+v)
	}
	rows, err := in.db.Query("SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow') ORDER BY name")
	require.NoError(t, err)
	type table struct {
		name  string
		rowid bool
	}
	var tables []table
	for rows.Next() {
		var tb table
		var wr int
		require.NoError(t, rows.Scan(&tb.name, &wr))
		tb.rowid = wr == 0
		tables = append(tables, tb)
	}
	require.NoError(t, rows.Close())
	for _, tb := range tables {
		dump := in.dump(t, tb.name, tb.rowid)
		switch {
		case tb.name == "query_log":
			s.Log = dump
		case slices.Contains(serverTables, tb.name):
			s.Server[tb.name] = dump
		default:
			s.Tables[tb.name] = dump
		}
	}
	s.Files = listFiles(t, in.env.Dir)
	s.Outside = listFiles(t, in.env.outside)
	return s
}

// dump renders every row of a table, one line per row, each value exactly:
// quote() keeps integers, reals (it round-trips them) and blobs exact, and a
// text holding a NUL byte, which quote() would cut, is given as hex.
func (in *inspector) dump(t *testing.T, table string, rowid bool) []string {
	t.Helper()
	var all sql.NullString
	require.NoError(t, in.db.QueryRow(in.dumpQuery(t, table, rowid)).Scan(&all), table)
	if !all.Valid {
		return nil
	}
	out := strings.Split(all.String, "\x1e\x1f")
	if !rowid {
		slices.Sort(out)
	}
	return out
}

// dumpQuery builds the query that dumps table. It depends only on the
// table's columns, so it is kept per table and column list.
func (in *inspector) dumpQuery(t *testing.T, table string, rowid bool) string {
	t.Helper()
	var cols string
	require.NoError(t, in.db.QueryRow("SELECT group_concat(name, char(30)) FROM pragma_table_xinfo(?)", table).Scan(&cols), table)
	key := table + "\x1f" + cols
	if q, ok := dumpQueries.Load(key); ok {
		return q.(string)
	}
	var exprs []string
	if rowid {
		exprs = append(exprs, "quote(rowid)")
	}
	for _, c := range strings.Split(cols, "\x1e") {
		q := domain.QuoteIdent(c)
		exprs = append(exprs, "CASE WHEN typeof("+q+") = 'text' AND instr("+q+", char(0)) THEN 'T' || hex("+q+") ELSE quote("+q+") END")
	}
	order := ""
	if rowid {
		order = " ORDER BY rowid"
	}
	q := "SELECT group_concat(r, char(30, 31)) FROM (SELECT " + strings.Join(exprs, " || '|' || ") + " AS r FROM " + domain.QuoteIdent(table) + order + ")"
	dumpQueries.Store(key, q)
	return q
}

var dumpQueries sync.Map

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
func connState(t *testing.T, store *sqlite.Store) []string {
	t.Helper()
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
		for _, p := range []string{"query_only", "foreign_keys", "journal_mode", "synchronous", "busy_timeout", "cache_size", "wal_autocheckpoint", "mmap_size", "temp_store", "max_page_count"} {
			out = append(out, fmt.Sprintf("%s %s=%s", tier.Tool(), p, ask(tier, "PRAGMA "+p)))
		}
		// Defensive mode is what refuses direct writes to real shadow tables;
		// its own message is the contract here.
		defensive := ask(tier, "DELETE FROM defensive_probe_data WHERE 0")
		out = append(out, fmt.Sprintf("%s defensive=%v", tier.Tool(), strings.Contains(defensive, "may not be modified")))
	}
	return out
}

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
