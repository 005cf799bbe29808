package e2e_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// sidecarRun runs cmd to the end with stdin empty and returns its exit
// status, stdout and stderr.
func sidecarRun(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errOut.String()
	}
	require.NoError(t, err)
	return 0, out.String(), errOut.String()
}

// sidecarLonelyServer copies the server's executable into a folder of its
// own, where no replication sidecar lies beside it.
func sidecarLonelyServer(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	lonely := filepath.Join(t.TempDir(), filepath.Base(bin))
	require.NoError(t, os.WriteFile(lonely, data, 0o755))
	return lonely
}

// TestReplicateWithoutTheSidecar: Litestream runs in a separate executable
// (mcp-sqlite-memory-replicate); a server that cannot find it refuses
// --replicate and restore with one line that says how to install it,
// before it serves anything, and an explicit MCP_SQLITE_REPLICATOR that
// names nothing is refused the same way.
func TestReplicateWithoutTheSidecar(t *testing.T) {
	t.Parallel()
	lonely := sidecarLonelyServer(t)
	emptyPath := "PATH=" + t.TempDir()
	db := newDB(t)
	replica := replFileURL(filepath.Join(t.TempDir(), "replica"))
	for _, args := range [][]string{
		{"--db", db, "--replicate", replica},
		{"restore", "--from", replica, "--to", filepath.Join(t.TempDir(), "r.db")},
	} {
		cmd := replCommand([]string{emptyPath}, args...)
		cmd.Path, cmd.Args[0] = lonely, lonely
		code, out, errOut := sidecarRun(t, cmd)
		assert.Equal(t, 1, code, "%v: %s", args, errOut)
		assert.Empty(t, out, "%v", args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", args, errOut)
		assert.Contains(t, errOut, "go install github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory-replicate@latest", "%v", args)
		assert.Contains(t, errOut, "MCP_SQLITE_REPLICATOR", "%v", args)
	}

	cmd := replCommand([]string{"MCP_SQLITE_REPLICATOR=" + filepath.Join(t.TempDir(), "nothing")}, "--db", db, "--replicate", replica)
	code, out, errOut := sidecarRun(t, cmd)
	assert.Equal(t, 1, code, errOut)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	assert.Contains(t, errOut, "MCP_SQLITE_REPLICATOR=")
}

// TestReplicateSidecarFoundThroughTheVariable: MCP_SQLITE_REPLICATOR names
// the sidecar wherever it lies; the lonely server then replicates.
func TestReplicateSidecarFoundThroughTheVariable(t *testing.T) {
	t.Parallel()
	lonely := sidecarLonelyServer(t)
	sidecar := filepath.Join(filepath.Dir(bin), "mcp-sqlite-memory-replicate"+filepath.Ext(bin))
	cmd := replCommand([]string{"PATH=" + t.TempDir(), "MCP_SQLITE_REPLICATOR=" + sidecar},
		"--db", newDB(t), "--replicate", replFileURL(filepath.Join(t.TempDir(), "replica")))
	cmd.Path, cmd.Args[0] = lonely, lonely
	code, out, errOut := sidecarRun(t, cmd) // stdin empty: the server exits at once
	assert.Equal(t, 0, code, errOut)
	assert.Empty(t, out, "the sidecar's control lines never reach the server's stdout")
	assert.Contains(t, errOut, replLine)
	assert.Contains(t, errOut, "replica up to date")
}

// TestReplicateURLRefusedByLitestream: a URL only Litestream's own parser
// refuses (an S3 parameter that is not a number) still ends the server
// with status 2 and one line naming the setting, though the sidecar, not
// the server, finds the fault.
func TestReplicateURLRefusedByLitestream(t *testing.T) {
	t.Parallel()
	cmd := replCommand(nil, "--db", newDB(t), "--replicate", "s3://bucket/path?concurrency=many")
	code, out, errOut := sidecarRun(t, cmd)
	assert.Equal(t, 2, code, errOut)
	assert.Empty(t, out)
	lines := e2e.Messages(errOut) // the start-up's log records come before the sidecar's verdict
	require.Len(t, lines, 1, "one line besides the start-up's log records: %q", errOut)
	assert.True(t, strings.HasPrefix(lines[0], "mcp-sqlite-memory: invalid --replicate: "), errOut)
	assert.Contains(t, errOut, "concurrency")
}
