// Package e2e builds the mcp-sqlite-memory binary and runs it the way an MCP
// client does: as a child process spoken to over stdin and stdout. Its
// helpers serve this folder's end-to-end tests and any other test package
// that must exercise the real executable (test/contract's stdio run).
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// BinaryName is the executable's file name.
const BinaryName = "mcp-sqlite-memory"

// SidecarName is the replication sidecar's executable name; the server
// finds it beside itself.
const SidecarName = "mcp-sqlite-memory-replicate"

// Build compiles ./cmd/mcp-sqlite-memory of the module the working directory
// belongs to into dir and returns the executable's path, with the race
// detector when [RaceEnv] is set; the replication sidecar
// (./cmd/mcp-sqlite-memory-replicate) is built beside it, where the server
// looks for it first. The build is always made from this checkout, never
// from a binary lying around elsewhere.
func Build(dir string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("find the module root: %w", err)
	}
	root := strings.TrimSpace(string(out))
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	bin := filepath.Join(dir, BinaryName+exe)
	for _, b := range [][2]string{{bin, "./cmd/mcp-sqlite-memory"}, {filepath.Join(dir, SidecarName+exe), "./cmd/mcp-sqlite-memory-replicate"}} {
		args := append(append([]string{"build"}, raceBuildFlags()...), "-o", b[0], b[1])
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %w\n%s", b[1], err, out)
		}
	}
	return bin, nil
}

// Main is the body of a TestMain: it builds the binary once into a temporary
// folder, stores its path in *bin, runs the tests and removes the folder.
// It returns the status for os.Exit.
func Main(m *testing.M, bin *string) int {
	dir, err := os.MkdirTemp("", "mcp-sqlite-memory-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *bin, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// Env returns the test process's environment with every MCP_SQLITE_*
// variable removed, so a developer's own settings cannot leak into a test,
// followed by extra ("NAME=value" entries).
func Env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCP_SQLITE_") {
			env = append(env, kv)
		}
	}
	return append(append(env, raceChildEnv()...), extra...)
}

// Buffer is a bytes.Buffer safe for concurrent use: a child process writes
// its stderr into it while the test reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Process is one running server and a go-sdk client connected to it over
// the server's stdin and stdout.
type Process struct {
	// Session is the connected client.
	Session *mcp.ClientSession
	// Cmd is the child process (already started; Session.Close waits for it).
	Cmd *exec.Cmd
	// Stderr collects the server's log lines.
	Stderr *Buffer
}

// Command returns a command that runs bin with args in the clean
// environment of [Env]; append to its Env to set variables for the child.
func Command(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = Env()
	return cmd
}

// Connect starts cmd (typically from [Command]) and connects a client over
// its stdin and stdout with [mcp.CommandTransport]. It does not touch a
// testing.T, so goroutines may use it; the caller closes p.Session, which
// closes the server's stdin and waits for it to exit.
func Connect(ctx context.Context, cmd *exec.Cmd) (*Process, error) {
	p := &Process{Cmd: cmd, Stderr: &Buffer{}}
	cmd.Stderr = p.Stderr
	// Closing stdin must end the server; a server that ignores it would be
	// sent SIGTERM after this long, which the exit-time tests would notice.
	transport := &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "test"}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		return nil, fmt.Errorf("connect to %v: %w; stderr:\n%s", cmd.Args, err, p.Stderr)
	}
	p.Session = cs
	return p, nil
}

// Start is [Connect] for a test: it fails the test if the server cannot be
// reached, closes the session when the test ends, and prints the server's
// stderr if the test failed.
func Start(t testing.TB, cmd *exec.Cmd) *Process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), slack.Of(10*time.Second))
	defer cancel()
	p, err := Connect(ctx, cmd)
	require.NoError(t, err)
	p.Cleanup(t)
	return p
}

// Cleanup registers closing the session at the end of the test, and
// printing the server's stderr if the test failed.
func (p *Process) Cleanup(t testing.TB) {
	t.Cleanup(func() {
		_ = p.Session.Close()
		checkNoRace(t, p.Stderr.String())
		if t.Failed() {
			t.Logf("server stderr (%v):\n%s", p.Cmd.Args, p.Stderr)
		}
	})
}
