package e2e_test

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// TestOpenLateFailureAfterInitialize: the server answers the handshake
// while the database opens (docs/decisions.md#start-up), so a client may already have sent
// initialize, tools/list and a tool call when the open fails. The server
// still exits with the open's status and one line on stderr, though the
// client keeps its stdin open, and its stdout holds nothing but JSON-RPC.
func TestOpenLateFailureAfterInitialize(t *testing.T) {
	t.Parallel()
	t.Run("damaged file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "mem.db")
		good := goodDB(t)
		require.NoError(t, os.WriteFile(path, good[:len(good)/2], 0o644))
		lines := openLateRun(t, path, "mem.db is not a usable SQLite database", "left it as it is")
		t.Logf("%d JSON-RPC lines on stdout before the exit", len(lines))
	})
	t.Run("locked by another program", func(t *testing.T) {
		// The open waits out the busy timeout (5 s): the handshake is
		// answered long before it fails.
		t.Parallel()
		path := filepath.Join(t.TempDir(), "mem.db")
		d, err := sql.Open("sqlite", "file:"+path)
		require.NoError(t, err)
		_, err = d.Exec("CREATE TABLE notes (n INTEGER)")
		require.NoError(t, err)
		require.NoError(t, d.Close())
		holdWriteLock(t, path)
		lines := openLateRun(t, path, "mem.db", "locked")
		require.GreaterOrEqual(t, len(lines), 2, "initialize and tools/list were answered before the open failed")
		assert.Contains(t, lines[0], `"id":1,"result"`)
		assert.Contains(t, lines[1], `"name":"read_query"`)
	})
}

// openLateRun starts the server on path, sends the handshake, tools/list
// and a read_query without waiting, keeps stdin open, and checks that the
// server exits with status 1 and one line on stderr naming every one of
// want; it returns the stdout lines, each checked to be JSON-RPC.
func openLateRun(t *testing.T, path string, want ...string) []string {
	t.Helper()
	cmd := e2e.Command(bin, "--db", path)
	stderr := &e2e.Buffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close() // only after the server has exited
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"late","version":"test"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT 1"}}}`,
	} {
		_, err := stdin.Write([]byte(line + "\n"))
		require.NoError(t, err)
	}
	var lines []string
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
	}()
	exited := make(chan error, 1)
	go func() { <-scanned; exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(slack.Of(10 * time.Second)):
		require.FailNow(t, "the server did not exit after a failed open while its client stayed connected", "stderr:\n%s", stderr)
	}
	assert.Equal(t, 1, cmd.ProcessState.ExitCode(), stderr.String())
	assertOneLine(t, stderr.String(), want...)
	for _, l := range lines {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &msg), "stdout line %q", l)
		assert.Equal(t, "2.0", msg.JSONRPC, l)
		if strings.Contains(l, `"result":{"content"`) {
			assert.Contains(t, l, `"isError":true`, "a call is never answered with data when the open failed: %s", l)
		}
	}
	assert.True(t, strings.HasPrefix(stderr.String(), "mcp-sqlite-memory: "), stderr.String())
	return lines
}
