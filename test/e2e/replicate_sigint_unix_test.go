//go:build linux

package e2e_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// TestSidecarIgnoresCtrlC is README's promise that the replication sidecar
// ignores Ctrl+C (a terminal sends SIGINT to the whole process group, the
// server included, and the server stops the sidecar itself after its last
// write): once ready, the kernel lists SIGINT among the signals the process
// ignores, a SIGINT leaves it replicating, and it exits 0 when its stdin
// ends, as it does when the server closes it.
func TestSidecarIgnoresCtrlC(t *testing.T) {
	t.Parallel()
	sidecar := filepath.Join(filepath.Dir(bin), e2e.SidecarName)
	db := newDB(t)
	require.NoError(t, os.WriteFile(db, nil, 0o644)) // an empty file is an empty database
	cmd := exec.Command(sidecar, "run", "-control", "--db", db, "--sync-interval", "50ms")
	cmd.Env = append(os.Environ(), "MCP_SQLITE_REPLICATE="+replFileURL(filepath.Join(t.TempDir(), "replica")))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"ready":true`, "the sidecar's first control line")

	assert.True(t, ignores(t, cmd.Process.Pid, syscall.SIGINT), "SIGINT is ignored, per /proc/PID/status")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, stdin.Close())
	err = cmd.Wait()
	require.NoError(t, err, "exit 0 when stdin ends, not killed by the SIGINT sent before")
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
}

// ignores reports whether the kernel lists sig in the process's SigIgn mask.
func ignores(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			require.NoError(t, err)
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatalf("no SigIgn line in /proc/%d/status", pid)
	return false
}
