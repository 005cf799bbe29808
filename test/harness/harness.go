// Package harness builds the whole server in-process for tests: a real
// SQLite file in a temporary folder, the real core, and a real MCP client
// connected over the SDK's in-memory transports (or any other transport).
package harness

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Config adjusts the server a test gets.
type Config struct {
	// DBPath is the database file; "" makes test.db in a temporary folder.
	DBPath string
	Limits domain.Limits
	// ReadOnly starts the server in read-only mode.
	ReadOnly bool
	// Search replaces the text searcher (default: regexp2).
	Search ports.TextSearcher
	// Clock replaces the system clock.
	Clock ports.Clock
	// Audit replaces the audit sink (default: the database itself, or a
	// discarding sink in read-only mode).
	Audit ports.AuditSink
	// SnapshotDir overrides the snapshot folder.
	SnapshotDir string
	// WrapSnapshots, if set, wraps the real snapshotter (to slow it down,
	// say).
	WrapSnapshots func(ports.Snapshotter) ports.Snapshotter
	// Logger, when set, is the core's and the snapshotter's logger.
	Logger *slog.Logger
	// ClientLog, when set, sends log records to clients (logging/setLevel).
	ClientLog *mcpserver.ClientLog
	// Structured turns on structured results (--structured).
	Structured bool
}

// Env is one running server and a client connected to it.
type Env struct {
	Dir    string
	DBPath string
	Store  *sqlite.Store
	// Tools is the core itself, for measuring without the MCP layer.
	Tools  ports.Tools
	Client *mcp.ClientSession
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

type discard struct{}

// Record drops e.
func (discard) Record(context.Context, domain.AuditEntry) error { return nil }

// Server wires the core and returns the MCP server without connecting it.
func Server(t testing.TB, c Config) (*mcpserver.Server, *Env) {
	t.Helper()
	env := &Env{DBPath: c.DBPath}
	if env.DBPath == "" {
		env.Dir = t.TempDir()
		env.DBPath = filepath.Join(env.Dir, "test.db")
	} else {
		env.Dir = filepath.Dir(env.DBPath)
	}
	if c.Limits == (domain.Limits{}) {
		c.Limits = domain.DefaultLimits()
	}
	if c.Clock == nil {
		c.Clock = SystemClock{}
	}
	if c.Search == nil {
		c.Search = regexp2.New()
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, env.DBPath, sqlite.Options{QueryTimeout: c.Limits.QueryTimeout, ReadOnly: c.ReadOnly, MaxCellChars: c.Limits.MaxCellChars})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	env.Store = store
	deps := app.Deps{Statements: store, Schema: store, Views: store, Candidates: store, Memory: store, Audit: store, Clock: c.Clock, Search: c.Search}
	memory := true
	if c.ReadOnly {
		memory, err = store.Available(ctx)
		require.NoError(t, err)
		deps.Audit = discard{}
	} else {
		deps.Snapshots = snapshot.New(env.DBPath, snapshot.Options{Dir: c.SnapshotDir, Keep: c.Limits.Snapshots, Clock: c.Clock, Logger: c.Logger})
		if c.WrapSnapshots != nil {
			deps.Snapshots = c.WrapSnapshots(deps.Snapshots)
		}
	}
	if c.Audit != nil {
		deps.Audit = c.Audit
	}
	svc := app.New(deps, app.Options{Limits: c.Limits, Session: "20260913T101100Z-test", Logger: c.Logger})
	env.Tools = svc
	return mcpserver.New(svc, mcpserver.Options{Version: "test", Limits: c.Limits, ReadOnly: c.ReadOnly, Memory: memory, ClientLog: c.ClientLog, Structured: c.Structured}), env
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
	client := mcp.NewClient(&mcp.Implementation{Name: "harness", Version: "test"}, nil)
	cs, err := client.Connect(context.Background(), transport, nil)
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
