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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// BinaryName is the executable's file name.
const BinaryName = "mcp-sqlite-memory"

// Build compiles ./cmd/mcp-sqlite-memory of the module the working directory
// belongs to into dir and returns the executable's path. The build is always
// made from this checkout, never from a binary lying around elsewhere.
func Build(dir string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("find the module root: %w", err)
	}
	root := strings.TrimSpace(string(out))
	bin := filepath.Join(dir, BinaryName)
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mcp-sqlite-memory")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
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
	return append(env, extra...)
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

// Start runs bin with args (typically "--db", path) and connects a client
// with [mcp.CommandTransport]. The session is closed when the test ends, and
// the server's stderr is printed if the test failed.
func Start(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{Cmd: exec.Command(bin, args...), Stderr: &Buffer{}}
	p.Cmd.Env = Env()
	p.Cmd.Stderr = p.Stderr
	// Closing stdin must end the server; a server that ignores it would be
	// sent SIGTERM after this long, which the exit-time tests would notice.
	transport := &mcp.CommandTransport{Command: p.Cmd, TerminateDuration: 10 * time.Second}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "test"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil && p.Cmd.Process != nil {
		_ = p.Cmd.Process.Kill()
		_ = p.Cmd.Wait()
	}
	require.NoError(t, err, "connect to %s %v; stderr:\n%s", bin, args, p.Stderr)
	p.Session = cs
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("server stderr (%v):\n%s", args, p.Stderr)
		}
	})
	return p
}
