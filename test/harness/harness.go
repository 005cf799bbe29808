// Package harness builds the whole server in-process for tests: a real
// SQLite file in a temporary folder, the core and its adapters wired by
// cmd/wire exactly as the binary wires them, and a real MCP client
// connected over the SDK's in-memory transports (or any other transport).
package harness

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Config adjusts the server a test gets. Every field left zero gets what
// the binary gets with no flags: the harness builds the server with the
// binary's own wiring (package cmd/wire), so the tests run what ships.
type Config struct {
	// DBPath is the database file; "" makes test.db in a temporary folder.
	DBPath string
	Limits domain.Limits
	// ReadOnly starts the server in read-only mode.
	ReadOnly bool
	// AuditDB is --audit-db (read-only mode); "" sends the audit lines to
	// Env.Stderr, as the binary sends them to its stderr.
	AuditDB string
	// Search replaces the text searcher (default: the binary's, ripgrep
	// when it is on PATH with the in-process engine as its fallback).
	Search ports.TextSearcher
	// Clock replaces the system clock.
	Clock ports.Clock
	// Audit replaces the audit sink (default: the binary's).
	Audit ports.AuditSink
	// SnapshotDir overrides the snapshot folder.
	SnapshotDir string
	// WrapSnapshots, if set, wraps the real snapshotter (to slow it down,
	// say).
	WrapSnapshots func(ports.Snapshotter) ports.Snapshotter
	// Logger, when set, is the server's logger; what the core logs also
	// goes to the clients that asked for log messages, as in the binary.
	Logger *slog.Logger
	// Structured turns on structured results (--structured).
	Structured bool
	// Confirm are --confirm, --confirm-fallback and --confirm-wait.
	Confirm domain.ConfirmSettings
}

// Env is one running server and a client connected to it.
type Env struct {
	Dir    string
	DBPath string
	Store  *sqlite.Store
	// Statements and Memory are the database's statement runner and
	// memory store, the ones the core was given.
	Statements ports.StatementRunner
	Memory     ports.MemoryStore
	// Tools is the core itself, for measuring without the MCP layer.
	Tools  ports.Tools
	Client *mcp.ClientSession
	// Stderr is what the server wrote to its stderr: in read-only mode
	// without AuditDB, one JSON audit line per call.
	Stderr *Buffer
}

// Buffer is a bytes buffer safe for concurrent writers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Server wires the core with the binary's wiring and returns the MCP
// server without connecting it.
func Server(t testing.TB, c Config) (*mcpserver.Server, *Env) {
	t.Helper()
	env := &Env{DBPath: c.DBPath, Stderr: &Buffer{}}
	if env.DBPath == "" {
		env.Dir = t.TempDir()
		env.DBPath = filepath.Join(env.Dir, "test.db")
	} else {
		env.Dir = filepath.Dir(env.DBPath)
	}
	if c.Limits == (domain.Limits{}) {
		c.Limits = domain.DefaultLimits()
	}
	w, err := wire.Open(context.Background(), wire.Options{
		DBPath: env.DBPath, ReadOnly: c.ReadOnly, Limits: c.Limits, AuditDB: c.AuditDB,
		SnapshotDir: c.SnapshotDir, SnapshotDirSetting: "--snapshot-dir", Structured: c.Structured,
		Version: "test", Session: "20260913T101100Z-test", Logger: c.Logger, Stderr: env.Stderr,
		Clock: c.Clock, Search: c.Search, Audit: c.Audit, WrapSnapshots: c.WrapSnapshots, Confirm: c.Confirm,
	})
	require.NoError(t, err)
	t.Cleanup(w.Close)
	env.Store, env.Tools = w.Store, w.Service
	env.Statements, env.Memory = w.Deps.Statements, w.Deps.Memory
	return w.Server, env
}

// New starts a server and connects a client over in-memory transports.
func New(t testing.TB, c Config) *Env {
	t.Helper()
	server, env := Server(t, c)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	env.Client = Connect(t, ct)
	return env
}

// Connect connects a test client over transport.
func Connect(t testing.TB, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	return ConnectWith(t, transport, nil, nil)
}

// ConnectWith connects a test client with its own options (an
// elicitation handler, say) and session options (a protocol version).
func ConnectWith(t testing.TB, transport mcp.Transport, o *mcp.ClientOptions, so *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "harness", Version: "test"}, o)
	cs, err := client.Connect(context.Background(), transport, so)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Call invokes a tool and returns its text and whether it is a tool error.
func (e *Env) Call(t testing.TB, tool string, args map[string]any) (string, bool) {
	t.Helper()
	return Call(t, e.Client, tool, args)
}

// Call invokes a tool on any client session.
func Call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "protocol error calling %s", tool)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// MustCall invokes a tool that must succeed.
func (e *Env) MustCall(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	out, isErr := e.Call(t, tool, args)
	require.False(t, isErr, "%s failed: %s", tool, out)
	return out
}

// MustFail invokes a tool that must fail and returns the error text.
func (e *Env) MustFail(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	out, isErr := e.Call(t, tool, args)
	require.True(t, isErr, "%s should have failed, got: %s", tool, out)
	return out
}
