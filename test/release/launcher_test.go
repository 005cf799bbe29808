package release_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// needNode returns node's path, skipping the test without it locally and
// failing it in CI (CI set), where .ci/run installs it.
func needNode(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("node")
	if err != nil {
		require.Empty(t, os.Getenv("CI"), "CI needs node on PATH (.ci/run installs it)")
		t.Skip("node is not on PATH")
	}
	return path
}

// standIn is the platform package's "server" for the launcher tests: it
// prints its arguments and exits with the status asked, or waits for a
// signal and reports it.
const standIn = `#!/bin/sh
case "$1" in
  exit) echo "args:$*"; echo "to stderr" >&2; exit "$2" ;;
  wait) trap 'echo "got TERM" >&2; exit 7' TERM; echo ready; i=0; while [ $i -lt 120 ]; do sleep 1; i=$((i+1)); done; exit 98 ;;
esac
exit 99
`

// installLauncher lays out node_modules as npm installs the main package
// and this machine's platform package, with the stand-in as the server;
// optional is the main package's optionalDependencies.
func installLauncher(t *testing.T, withPlatform bool, optional map[string]string) (launcher string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in server is a shell script")
	}
	rel := fakeRelease(t)
	platform, arch := node(runtime.GOOS, runtime.GOARCH)
	pkg := "mcp-sqlite-memory-" + platform + "-" + arch
	modules := filepath.Join(t.TempDir(), "node_modules")
	for path, f := range rel.npm["mcp-sqlite-memory"] {
		data := f.data
		if path == "package.json" && optional != nil {
			var pj map[string]any
			require.NoError(t, json.Unmarshal(data, &pj))
			pj["optionalDependencies"] = optional
			var err error
			data, err = json.Marshal(pj)
			require.NoError(t, err)
		}
		write(t, filepath.Join(modules, "mcp-sqlite-memory", path), data, f.mode)
	}
	if withPlatform {
		write(t, filepath.Join(modules, pkg, "package.json"), rel.npm[pkg]["package.json"].data, 0o644)
		write(t, filepath.Join(modules, pkg, "bin", "mcp-sqlite-memory"), []byte(standIn), 0o755)
	}
	var pj packageJSON
	require.NoError(t, json.Unmarshal(rel.npm["mcp-sqlite-memory"]["package.json"].data, &pj))
	return filepath.Join(modules, "mcp-sqlite-memory", pj.Bin["mcp-sqlite-memory"])
}

func write(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, mode.Perm()))
}

// TestLauncherPassesThrough: the npm command runs the platform's binary
// with the same arguments, adds nothing to stdout (the JSON-RPC channel)
// and exits with the binary's status.
func TestLauncherPassesThrough(t *testing.T) {
	nodePath := needNode(t)
	launcher := installLauncher(t, true, nil)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(nodePath, launcher, "exit", "3", "--db", "a b.db")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v; stderr: %s", err, stderr.String())
	assert.Equal(t, 3, exit.ExitCode())
	assert.Equal(t, "args:exit 3 --db a b.db\n", stdout.String(), "stdout is the binary's alone")
	assert.Equal(t, "to stderr\n", stderr.String())
}

// TestLauncherPassesSignals: SIGTERM to the launcher (a client stopping
// the server) reaches the binary, and the launcher exits as it does.
func TestLauncherPassesSignals(t *testing.T) {
	nodePath := needNode(t)
	launcher := installLauncher(t, true, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, launcher, "wait")
	// A stand-in left running (the signal lost) holds stderr open: Wait
	// gives up on it after this long instead of hanging, and the stand-in
	// ends by itself within two minutes.
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	assert.Equal(t, 7, exit.ExitCode(), "the binary's own exit status after its SIGTERM handler")
	assert.Equal(t, "got TERM\n", stderr.String())
}

// TestLauncherExplainsAMissingBuild: without this machine's package the
// launcher says why on stderr and what to do, never on stdout.
func TestLauncherExplainsAMissingBuild(t *testing.T) {
	nodePath := needNode(t)
	for name, c := range map[string]struct {
		withPlatform bool
		optional     map[string]string
		want         string
	}{
		"no build for this platform": {true, map[string]string{"mcp-sqlite-memory-plan9-mips": "1.0.0"}, "there is no build for "},
		"platform package skipped":   {false, nil, "--omit=optional"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(nodePath, installLauncher(t, c.withPlatform, c.optional), "exit", "0")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "%v", err)
			assert.Equal(t, 1, exit.ExitCode())
			assert.Empty(t, stdout.String())
			assert.True(t, strings.HasPrefix(stderr.String(), "mcp-sqlite-memory: "), stderr.String())
			assert.Contains(t, stderr.String(), c.want)
		})
	}
}
