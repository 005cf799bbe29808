package readonly_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// bin is the binary TestMain built for this package: the audit trail and
// the open failures are wired in the command, so they are checked there.
var bin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, &bin)) }

// auditedCall is one tool call of an audited session and the audit fields it
// must leave.
type auditedCall struct {
	tool  string
	args  map[string]any
	ok    bool
	query any // the query field: the SQL, the table name, or nil
}

var auditedCalls = []auditedCall{
	{"list_tables", nil, true, nil},
	{"read_query", map[string]any{"query": "SELECT count(*) FROM orders"}, true, "SELECT count(*) FROM orders"},
	{"read_query", map[string]any{"query": "DELETE FROM orders"}, false, "DELETE FROM orders"},
	{"describe_table", map[string]any{"table": "nope"}, false, "nope"},
	{"read_query", map[string]any{"query": "SELECT 1", "limit": 0}, false, "SELECT 1"},
}

// runAudited starts the binary read-only on a fresh shop, makes the audited
// calls, ends the session and returns the server's stderr, the shop's path
// and its state before the server started.
func runAudited(t *testing.T, env []string, args ...string) (stderr, path string, before fileState) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), folderName)
	path = filepath.Join(dir, "shop.db")
	mustWriteShop(t, path, "delete", newShop())
	before = stateOf(t, path)
	cmd := e2e.Command(bin, append([]string{"--db", path}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	p := e2e.Start(t, cmd)
	for _, c := range auditedCalls {
		out, isErr := harness.Call(t, p.Session, c.tool, c.args)
		require.Equal(t, !c.ok, isErr, "%s: %s", c.tool, out)
		assert.NotContains(t, out, dir)
	}
	require.NoError(t, p.Session.Close(), "the server exits when its stdin closes")
	return p.Stderr.String(), path, before
}

// auditLines returns stderr's audit lines, decoded.
func auditLines(t *testing.T, stderr string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var m map[string]any
		if assert.NoError(t, json.Unmarshal([]byte(line), &m), "audit line %q is one JSON object", line) && m["audit"] == "query_log" {
			out = append(out, m)
		}
	}
	return out
}

func TestBinaryAuditsEveryReadOnlyCallAsAJSONLine(t *testing.T) {
	cases := []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", nil, []string{"--read-only"}},
		{"environment variable", []string{"MCP_SQLITE_READ_ONLY=1"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stderr, path, before := runAudited(t, c.env, c.args...)
			lines := auditLines(t, stderr)
			if assert.Len(t, lines, len(auditedCalls), stderr) {
				for i, want := range auditedCalls {
					got := lines[i]
					assert.Equal(t, want.tool, got["tool"], "line %d", i)
					assert.Equal(t, want.ok, got["ok"], "line %d", i)
					assert.Equal(t, want.query, got["query"], "line %d", i)
					if want.ok {
						assert.Nil(t, got["error"], "line %d", i)
					} else {
						assert.NotEmpty(t, got["error"], "line %d", i)
					}
				}
			}
			assert.Equal(t, before, stateOf(t, path), "the database is exactly as before")
		})
	}
}

func TestBinaryAuditsToASeparateAuditDatabase(t *testing.T) {
	auditPath := filepath.Join(t.TempDir(), "audit", "audit.db")
	stderr, path, before := runAudited(t, nil, "--read-only", "--audit-db", auditPath)
	assert.Empty(t, auditLines(t, stderr), "with --audit-db nothing is audited on stderr")
	assert.Equal(t, before, stateOf(t, path), "the database is exactly as before")

	db, err := sql.Open("sqlite", dsn(auditPath, "mode=ro"))
	require.NoError(t, err)
	defer db.Close()
	var got, failed []auditedCall
	rows, err := db.Query("SELECT tool, ok, query FROM query_log ORDER BY id")
	require.NoError(t, err)
	for rows.Next() {
		var c auditedCall
		var q sql.NullString
		require.NoError(t, rows.Scan(&c.tool, &c.ok, &q))
		if q.Valid {
			c.query = q.String
		}
		got = append(got, c)
	}
	require.NoError(t, rows.Err())
	var want, wantFailed []auditedCall
	for _, c := range auditedCalls {
		c.args = nil
		want = append(want, c)
		if !c.ok {
			wantFailed = append(wantFailed, auditedCall{tool: c.tool})
		}
	}
	assert.Equal(t, want, got)
	rows, err = db.Query("SELECT tool FROM query_errors ORDER BY id")
	require.NoError(t, err)
	for rows.Next() {
		var c auditedCall
		require.NoError(t, rows.Scan(&c.tool))
		failed = append([]auditedCall{c}, failed...) // the view lists newest first
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, wantFailed, failed)
}

// outcome is what a run of the binary that ends by itself left behind.
type outcome struct {
	code   int
	stdout string
	stderr string
}

// runToExit runs cmd with an empty stdin until it exits.
func runToExit(t *testing.T, cmd *exec.Cmd) outcome {
	t.Helper()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	return outcome{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// assertRefused checks a start that failed: status 1, nothing on stdout,
// one stderr line naming every one of want and no folder.
func assertRefused(t *testing.T, got outcome, dir string, want ...string) {
	t.Helper()
	assert.Equal(t, 1, got.code)
	assert.Empty(t, got.stdout)
	line, ok := strings.CutSuffix(got.stderr, "\n")
	assert.True(t, ok && !strings.Contains(line, "\n"), "exactly one stderr line: %q", got.stderr)
	for _, w := range want {
		assert.Contains(t, line, w)
	}
	assert.NotContains(t, line, dir, "the message names the file, not its folder")
}

func TestBinaryRefusesAMissingDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	got := runToExit(t, e2e.Command(bin, "--db", filepath.Join(dir, "new", "shop.db"), "--read-only"))
	assertRefused(t, got, dir, "shop.db", "read-only mode never creates a database")
	_, err := os.Stat(dir)
	assert.ErrorIs(t, err, fs.ErrNotExist, "neither the file nor a folder was created")
}

// TestBinaryServesAWALDatabaseWithoutItsWALFiles runs the binary on a WAL
// database the server used before, which was closed cleanly: the read-only
// session must create no -wal or -shm file.
func TestBinaryServesAWALDatabaseWithoutItsWALFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	path := filepath.Join(dir, "shop.db")
	mustServerShop(t, path, newShop())
	before := stateOf(t, path)
	p := e2e.Start(t, e2e.Command(bin, "--db", path, "--read-only"))
	for _, tool := range []string{"list_tables", "get_schema", "verify_chain", "get_resume_context"} {
		out, isErr := harness.Call(t, p.Session, tool, nil)
		assert.False(t, isErr, "%s: %s", tool, out)
	}
	out, isErr := harness.Call(t, p.Session, "read_query", map[string]any{"query": "SELECT count(*) FROM memory_events"})
	assert.Equal(t, "count(*)\n4\n# 1 rows", out, "two events, the marker before the first checkpoint and its seal")
	assert.False(t, isErr)
	assert.Equal(t, before.Files, stateOf(t, path).Files, "no file appears while the server runs")
	require.NoError(t, p.Session.Close())
	assert.Equal(t, before, stateOf(t, path))
}
