// Package e2e_test runs the built mcp-sqlite-memory binary the way an agent's
// MCP client does: over stdio, several processes on one file, killed in the
// middle of a write. It checks what only the real executable can show: the
// command line, exit statuses and times, a stdout that carries nothing but
// JSON-RPC, and durability and concurrency across processes.
package e2e_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // opens snapshots and crashed files independently of the server

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// bin is the binary TestMain built for this package.
var bin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, &bin)) }

// callTimeout bounds one tool call; nothing in these tests should come
// close, on a busy machine either (slack.Of, read when the tests start).
var callTimeout = slack.Of(20 * time.Second)

// call invokes a tool and returns its text and whether it is a tool error.
// It never touches t, so goroutines may use it.
func call(cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, error) {
	if args == nil {
		args = map[string]any{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, err
	}
	return text(res), res.IsError, nil
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mustCall invokes a tool that must succeed and returns its text.
func mustCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	out, isErr, err := call(cs, tool, args)
	require.NoError(t, err, "protocol error calling %s", tool)
	require.False(t, isErr, "%s failed: %s", tool, out)
	return out
}

// mustFail invokes a tool that must return a tool error and returns its text.
func mustFail(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	out, isErr, err := call(cs, tool, args)
	require.NoError(t, err, "protocol error calling %s", tool)
	require.True(t, isErr, "%s should have failed, got: %s", tool, out)
	return out
}

// start runs the binary on db with extra args and connects a client.
func start(t *testing.T, db string, args ...string) *e2e.Process {
	t.Helper()
	return e2e.Start(t, e2e.Command(bin, append([]string{"--db", db}, args...)...))
}

// newDB returns the path of a database file (not yet created) in a fresh folder.
func newDB(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "mem.db")
}

// openRO opens a SQLite file read-only with the modernc driver, independently
// of the server under test.
func openRO(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// integrityCheck runs PRAGMA integrity_check on the file and returns its
// answer ("ok" when the file is sound).
func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	var res string
	require.NoError(t, openRO(t, path).QueryRow("PRAGMA integrity_check").Scan(&res))
	return res
}
