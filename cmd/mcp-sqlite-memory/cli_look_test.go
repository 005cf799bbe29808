package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
)

// readingRuns are, for every subcommand in the command table, the command
// lines (after the name and --db) of its runs that only read. Every
// subcommand must be listed, with no runs when each of its runs writes, so
// a new subcommand is covered by TestReadingSubcommandsNeverChangeAPlainDatabase
// from the day it is added.
var readingRuns = map[string][][]string{
	"verify":    {{}, {"--json"}},
	"resume":    {{}, {"--max-events", "3"}},
	"log":       {{}, {"--failures"}, {"--json"}},
	"snapshots": {{}, {"list"}, {"list", "--json"}},
	"undo":      {},
	"pending":   {{}, {"--json"}},
	"approve":   {},
	"deny":      {},
	"export":    {{}, {"--json"}},
	// ui serves until stopped, so no run of it ends here; it reads (its
	// use is nil), so on a plain file lookFirst, tested by the others,
	// makes it read-only.
	"ui": {},
	"call": {{}, {"read_query", `{"query": "SELECT * FROM items"}`}, {"list_tables"}, {"describe_table", `{"table": "items"}`},
		{"get_schema"}, {"search_text", `{"table": "items", "pattern": "x"}`}, {"verify_chain"}, {"get_resume_context"}, {"--json", "read_query", `{"query": "SELECT 1"}`}},
}

// plainDB makes an ordinary SQLite database (rollback journal, one table of
// its own), the kind a person explores, and returns its path.
func plainDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.db")
	h, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = h.Exec("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items(name) VALUES ('chair'), ('table')")
	require.NoError(t, err)
	require.NoError(t, h.Close())
	return path
}

// nopWriteCloser is a buffer as run's stdout.
type nopWriteCloser struct{ bytes.Buffer }

func (*nopWriteCloser) Close() error { return nil }

// runCLI runs the program in this process and returns its exit status,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout nopWriteCloser
	var stderr bytes.Buffer
	err := run(context.Background(), args, io.NopCloser(strings.NewReader("")), &stdout, &stderr)
	code := exitCode(err, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestMain turns SQLite's memory accounting on before any test opens a
// database (the tests here open SQLite files themselves, before run does):
// the process-wide heap limit must be set first, as run sets it.
func TestMain(m *testing.M) {
	if err := sqlite.LimitHeap(0, 0); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// companions are the files SQLite may put beside a database.
var companions = []string{"-wal", "-shm", "-journal"}

func TestReadingSubcommandsNeverChangeAPlainDatabase(t *testing.T) {
	t.Parallel()
	for _, cmd := range commands {
		if cmd.noDB {
			continue
		}
		runs, ok := readingRuns[cmd.name]
		if !assert.True(t, ok, "list the reading runs of the subcommand %s in readingRuns (none if every run writes)", cmd.name) {
			continue
		}
		for _, extra := range runs {
			t.Run(cmd.name+" "+strings.Join(extra, " "), func(t *testing.T) {
				t.Parallel()
				db := plainDB(t)
				args := append([]string{cmd.name, "--db", db}, extra...)
				cfg, err := parseConfig(args, os.Getenv)
				require.NoError(t, err)
				require.False(t, useOf(cmd, cfg).writes, "readingRuns lists a run that writes: %v", args)
				before, err := os.ReadFile(db)
				require.NoError(t, err)

				code, stdout, stderr := runCLI(t, args...)
				after, err := os.ReadFile(db)
				require.NoError(t, err)
				assert.True(t, bytes.Equal(before, after), "%v changed the database's bytes (exit %d)\nstdout: %s\nstderr: %s", args, code, stdout, stderr)
				for _, suffix := range companions {
					assert.NoFileExists(t, db+suffix, "%v left a %s file", args, suffix)
				}
				assert.Contains(t, stderr, "shop.db holds no memory", "%v: exit %d\nstdout: %s", args, code, stdout)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
				entries, err := os.ReadDir(filepath.Dir(db))
				require.NoError(t, err)
				assert.Len(t, entries, 1, "%v created a file beside the database", args)
			})
		}
	}
}

func TestLookFirstOnAPlainDatabase(t *testing.T) {
	t.Parallel()
	db := plainDB(t)
	code, stdout, stderr := runCLI(t, "verify", "--db", db)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	for _, want := range []string{"shop.db holds no memory", "memory_events", "nothing was changed", "--db " + db} {
		assert.Contains(t, stderr, want)
	}
	code, _, stderr = runCLI(t, "log", "--db", db)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no query_log table")

	code, stdout, stderr = runCLI(t, "call", "--db", db, "read_query", `{"query": "SELECT name FROM items ORDER BY id"}`)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "name\nchair\ntable\n# 2 rows\n", stdout, "a read tool works on the plain file, read-only")
	code, _, stderr = runCLI(t, "call", "--db", db, "read_query", `{"query": "SELECT * FROM nope"}`)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no such table: nope", "a tool error still reaches the person")

	// A write says first that it adds the server's tables, then does.
	code, _, stderr = runCLI(t, "call", "--db", db, "write_query", `{"query": "INSERT INTO items(name) VALUES ('lamp')"}`)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "shop.db lacks the server's tables (memory_events, memory_checkpoints, query_log): adding them")
	h, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	require.NoError(t, err)
	defer h.Close()
	var mode string
	var n int
	require.NoError(t, h.QueryRow("PRAGMA journal_mode").Scan(&mode))
	require.NoError(t, h.QueryRow("SELECT count(*) FROM query_log").Scan(&n))
	assert.Equal(t, "wal", mode)
	assert.Equal(t, 1, n, "the write is audited")

	// Now the server's own database: reading runs as before, audited.
	code, stdout, stderr = runCLI(t, "verify", "--db", db)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "chain ok: 0 events")
	assert.Empty(t, stderr)
	code, _, stderr = runCLI(t, "call", "--db", db, "read_query", `{"query": "SELECT 1"}`)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	require.NoError(t, h.QueryRow("SELECT count(*) FROM query_log").Scan(&n))
	assert.Equal(t, 3, n, "verify and read_query are audited like tool calls on the server's database")
}

func TestLookFirstNeverCreatesAnAuditDB(t *testing.T) {
	t.Parallel()
	db := plainDB(t)
	audit := filepath.Join(filepath.Dir(db), "audit.db")
	code, _, stderr := runCLI(t, "call", "--db", db, "--audit-db", audit, "list_tables")
	assert.Equal(t, 0, code, stderr)
	assert.NoFileExists(t, audit, "a look at a plain file writes no audit database either")
}
