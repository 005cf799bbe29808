package e2e_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// outcome is what one run of the binary left behind.
type outcome struct {
	code           int
	stdout, stderr string
}

// runBinary runs the binary to completion with stdin empty, the test
// process's MCP_SQLITE_* variables removed and env added.
func runBinary(t *testing.T, env []string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), slack.Of(10*time.Second))
	defer cancel()
	var stdout, stderr strings.Builder
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = e2e.Env(env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	require.NoError(t, ctx.Err(), "the binary did not exit on its own")
	return outcome{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// assertOneLine checks that s is exactly one line, newline-terminated,
// naming every one of names, and free of stack traces.
func assertOneLine(t *testing.T, s string, names ...string) {
	t.Helper()
	line, ok := strings.CutSuffix(s, "\n")
	if !assert.True(t, ok, "stderr must end with a newline: %q", s) {
		return
	}
	assert.NotContains(t, line, "\n", "stderr must be exactly one line")
	assert.NotContains(t, line, "goroutine ")
	assert.NotContains(t, line, "panic")
	for _, n := range names {
		assert.Contains(t, line, n)
	}
}

func TestMissingDBIsOneLineNamingTheSetting(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  []string
		args []string
	}{
		{name: "no flag, no variable"},
		{name: "empty variable counts as unset", env: []string{"MCP_SQLITE_DB="}},
		{name: "other flags but no db", args: []string{"--max-rows", "10"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := runBinary(t, tc.env, tc.args...)
			assert.NotZero(t, got.code)
			assert.Empty(t, got.stdout)
			assertOneLine(t, got.stderr, "--db", "MCP_SQLITE_DB")
		})
	}
}

// TestBadSettingsExitTwo pins docs/decisions.md#details: malformed or invalid values, in a
// flag or a variable, and unknown flags are one stderr line naming the
// setting, exit status 2, nothing on stdout, and nothing created.
func TestBadSettingsExitTwo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  []string
		args []string
		want string // the setting the line must name
	}{
		{name: "malformed int variable", env: []string{"MCP_SQLITE_MAX_ROWS=abc"}, want: "MCP_SQLITE_MAX_ROWS"},
		{name: "malformed float variable", env: []string{"MCP_SQLITE_QUERY_TIMEOUT=soon"}, want: "MCP_SQLITE_QUERY_TIMEOUT"},
		{name: "malformed snapshots variable", env: []string{"MCP_SQLITE_SNAPSHOTS=five"}, want: "MCP_SQLITE_SNAPSHOTS"},
		{name: "malformed int flag", args: []string{"--max-rows", "abc"}, want: "max-rows"},
		{name: "malformed int flag with equals", args: []string{"--default-limit=1.5"}, want: "default-limit"},
		{name: "malformed float flag", args: []string{"--query-timeout", "ten"}, want: "query-timeout"},
		{name: "malformed bool flag", args: []string{"--verbose=maybe"}, want: "verbose"},
		{name: "flag without its value", args: []string{"--max-rows"}, want: "max-rows"},
		{name: "unknown flag", args: []string{"--bogus-setting", "1"}, want: "bogus-setting"},
		{name: "zero max rows flag", args: []string{"--max-rows", "0"}, want: "--max-rows"},
		{name: "negative timeout variable", env: []string{"MCP_SQLITE_QUERY_TIMEOUT=-1"}, want: "MCP_SQLITE_QUERY_TIMEOUT"},
		{name: "negative snapshots flag", args: []string{"--snapshots", "-1"}, want: "snapshots"},
		{name: "default limit above max rows", args: []string{"--default-limit", "2000"}, want: "--default-limit"},
		{name: "flag wins but is malformed", env: []string{"MCP_SQLITE_MAX_ROWS=10"}, args: []string{"--max-rows", "x"}, want: "max-rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newDB(t)
			got := runBinary(t, tc.env, append([]string{"--db", db}, tc.args...)...)
			assert.Equal(t, 2, got.code)
			assert.Empty(t, got.stdout)
			assertOneLine(t, got.stderr, tc.want)
			_, err := os.Stat(db)
			assert.ErrorIs(t, err, os.ErrNotExist, "a refused start creates no database")
		})
	}
}

func TestNotASQLiteFileIsRefusedByName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txt")
	content := []byte("these are plain notes, not a database; the server must leave them alone\n")
	require.NoError(t, os.WriteFile(path, content, 0o644))

	got := runBinary(t, nil, "--db", path)
	assert.Equal(t, 1, got.code)
	assert.Empty(t, got.stdout)
	assertOneLine(t, got.stderr, "notes.txt")
	assert.NotContains(t, got.stderr, dir, "the message names the file, not its absolute path")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, after, "the file is left untouched")
}

func TestDatabaseAndParentFoldersAreCreated(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		db   func(dir string) (arg, want string)
		env  func(dir string) []string
	}{
		{
			name: "nested missing folders",
			db: func(dir string) (string, string) {
				p := filepath.Join(dir, "a", "b", "c", "mem.db")
				return p, p
			},
		},
		{
			name: "tilde is the home folder",
			db: func(dir string) (string, string) {
				return "~/work/mem.db", filepath.Join(dir, "work", "mem.db")
			},
			env: func(dir string) []string { return []string{"HOME=" + dir} },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			arg, want := tc.db(dir)
			cmd := e2e.Command(bin, "--db", arg)
			if tc.env != nil {
				cmd.Env = append(cmd.Env, tc.env(dir)...)
			}
			p := e2e.Start(t, cmd)
			assert.Equal(t, "journal_mode\nwal\n# 1 rows", mustCall(t, p.Session, "read_query", map[string]any{"query": "PRAGMA journal_mode"}))
			require.NoError(t, p.Session.Close())
			st, err := os.Stat(want)
			require.NoError(t, err, "the database file is created on first start")
			assert.True(t, st.Mode().IsRegular())
			assert.Equal(t, "ok", integrityCheck(t, want))
		})
	}
}
