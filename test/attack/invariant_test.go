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
	header := make([]any, len(headerFields))
	ptrs := make([]any, len(header))
	for i := range header {
		ptrs[i] = &header[i]
	}
	require.NoError(t, in.db.QueryRow(headerQuery).Scan(ptrs...))
	for i, f := range headerFields {
		s.Header = append(s.Header, fmt.Sprintf("%s=%v", f, header[i]))
	}
	rows, err := in.db.Query(in.dumpQuery(t))
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
// whether it has a rowid, and its rows, one line each, every value exact.
// quote() keeps integers, reals (it round-trips them) and blobs exact; a
// text holding a NUL byte, which quote() would cut, is given as hex. The
// query depends only on the tables and their columns, so it is built once
// per schema.
func (in *inspector) dumpQuery(t *testing.T) string {
	t.Helper()
	var schema string
	require.NoError(t, in.db.QueryRow(`SELECT group_concat(name || char(29) || wr || char(29) || cols, char(28)) FROM (
  SELECT l.name, l.wr, (SELECT group_concat(x.name, char(30)) FROM pragma_table_xinfo(l.name) x) AS cols
  FROM pragma_table_list l WHERE l.schema = 'main' AND l.type IN ('table', 'shadow') ORDER BY l.name)`).Scan(&schema))
	if q, ok := dumpQueries.Load(schema); ok {
		return q.(string)
	}
	var parts []string
	for _, table := range strings.Split(schema, "\x1c") {
		f := strings.Split(table, "\x1d")
		name, rowid := f[0], f[1] == "0"
		var exprs []string
		order := ""
		if rowid {
			exprs, order = append(exprs, "quote(rowid)"), " ORDER BY rowid"
		}
		for _, c := range strings.Split(f[2], "\x1e") {
			q := domain.QuoteIdent(c)
			exprs = append(exprs, "CASE WHEN typeof("+q+") = 'text' AND instr("+q+", char(0)) THEN 'T' || hex("+q+") ELSE quote("+q+") END")
		}
		parts = append(parts, fmt.Sprintf("SELECT %s, %t, (SELECT group_concat(r, char(30, 31)) FROM (SELECT %s AS r FROM %s%s))",
			quoteString(name), rowid, strings.Join(exprs, " || '|' || "), domain.QuoteIdent(name), order))
	}
	q := strings.Join(parts, "\nUNION ALL ")
	dumpQueries.Store(schema, q)
	return q
}

var dumpQueries sync.Map

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

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
		out = append(out, tier.Tool()+" "+ask(tier, connSettingsQuery))
		// Defensive mode is what refuses direct writes to real shadow tables;
		// its own message is the contract here.
		defensive := ask(tier, "DELETE FROM defensive_probe_data WHERE 0")
		out = append(out, fmt.Sprintf("%s defensive=%v", tier.Tool(), strings.Contains(defensive, "may not be modified")))
	}
	return out
}

// connSettingsQuery reads, in one statement, the settings of the connection
// it runs on that an attack could try to change for the next call.
var connSettingsQuery = func() string {
	var cols []string
	for _, p := range []string{"query_only", "foreign_keys", "journal_mode", "synchronous", "busy_timeout", "cache_size", "wal_autocheckpoint", "mmap_size", "temp_store", "max_page_count"} {
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
