package e2e_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// edgesRun runs the binary with no client and stdin closed, and returns its
// exit status and stderr.
func edgesRun(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := e2e.Command(bin, args...)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	}
	require.NoError(t, err)
	return 0, stderr.String()
}

// TestStartupErrorsNameTheSettingAsGiven drives the built binary: a bad
// value, a folder as --db, and settings without effect each say so on
// stderr, naming the setting as the user gave it.
func TestStartupErrorsNameTheSettingAsGiven(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	for _, c := range []struct {
		env    []string
		args   []string
		status int
		want   string
	}{
		{nil, []string{"--db", db, "-max-rows", "0"}, 2, `for -max-rows: want a positive integer`},
		{nil, []string{"--db", db, "--max-rows=x"}, 2, `for --max-rows: want an integer`},
		{[]string{"MCP_SQLITE_MAX_ROWS=0"}, []string{"--db", db}, 2, `for MCP_SQLITE_MAX_ROWS: want a positive integer`},
		{nil, []string{"--db", db, "--bogus"}, 2, "unknown flag --bogus"},
		{nil, []string{"-db", dir}, 1, "-db names a folder (" + filepath.Base(dir) + "), not a database file"},
		{[]string{"MCP_SQLITE_DB=" + dir}, nil, 1, "MCP_SQLITE_DB names a folder"},
	} {
		status, stderr := edgesRun(t, c.env, c.args...)
		assert.Equal(t, c.status, status, "%v %v: %s", c.env, c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v %v", c.env, c.args)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
	}
	status, stderr := edgesRun(t, nil, "--db", db, "--rg", filepath.Join(dir, "no-rg"), "--audit-db", filepath.Join(dir, "a.db"), "--max-sessions", "3")
	assert.Equal(t, 0, status, stderr)
	for _, w := range []string{"warning: --rg ", "warning: --audit-db is ignored without --read-only", "warning: --max-sessions is ignored without --http"} {
		assert.Contains(t, stderr, w)
	}
}
