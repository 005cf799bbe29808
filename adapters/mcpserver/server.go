package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Name is the server's name in serverInfo.
const Name = "mcp-sqlite-memory"

// Options configure the MCP server.
type Options struct {
	// Version is reported in serverInfo.
	Version string
	// Limits word the schemas (bounds, defaults) and descriptions.
	Limits domain.Limits
	// ReadOnly offers only the read tools.
	ReadOnly bool
	// HidePaths cuts absolute paths to base names in the log records sent
	// to clients, as read-only mode does: set when answers leave the
	// machine (HTTP).
	HidePaths bool
	// Memory offers verify_chain and get_resume_context in read-only mode
	// (the memory tables exist).
	Memory bool
	// Logger receives the SDK's protocol-level logs; nil discards.
	Logger *slog.Logger
	// Log receives the server's own warnings, such as inbound frames it
	// refused; nil discards.
	Log *slog.Logger
	// Structured adds an outputSchema to the tools that answer with a table
	// and returns the table as structuredContent too (--structured).
	Structured bool
	// ClientLog, when set, sends the server's log records to clients that
	// asked for them (logging/setLevel); see [ClientLog].
	ClientLog *ClientLog
}

// Server is the SDK's server with the tools registered, plus a way to cancel
// every call in flight when the process shuts down: the SDK waits for
// running handlers, and a query may run until its timeout.
type Server struct {
	*mcp.Server
	tools ports.Tools
	names map[string]bool // the tools offered, for the frame guard
	opts  Options
	// life ends at Shutdown; every call's context is cancelled with it.
	life     context.Context
	shutdown context.CancelFunc

	// sessionID, set when the server is served over HTTP
	// (SetSessionIDs), gives each MCP session its own id for events and
	// audit rows; nil on stdio, where the process's id is the session's.
	sessionID func(mcpID string) string
	// rounds signs and remembers the questions sent as input requests
	// (inputround.go).
	rounds *roundKeys
}

// New returns an MCP server whose tools call tools.
func New(tools ports.Tools, o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		tools:  tools,
		names:  map[string]bool{},
		opts:   o,
		rounds: newRoundKeys(),
	}
	s.life, s.shutdown = context.WithCancel(context.Background())
	opts := &mcp.ServerOptions{Instructions: instructions(o.ReadOnly, o.Memory), Logger: o.Logger, SetCacheable: cacheable}
	memoryOptions(s, opts) // memory.go
	s.Server = mcp.NewServer(&mcp.Implementation{Name: Name, Version: o.Version}, opts)
	register(s, tools, o)
	registerMemory(s, o)
	s.AddReceivingMiddleware(frame.SpliceMiddleware)
	if o.ClientLog != nil {
		o.ClientLog.attach(s, o.ReadOnly || o.HidePaths)
	}
	s.AddReceivingMiddleware(stackMiddleware(o.Limits.MaxConcurrentCalls)) // outermost: added last
	return s
}

// Offers reports whether the server offers a tool of that name.
func (s *Server) Offers(name string) bool { return s.names[name] }

// Options are the server's settings, as New completed them.
func (s *Server) Options() Options { return s.opts }

// Reject audits a call a front end refused before it reached a tool (under
// tool, the tool it names or what was refused) and returns err for the
// agent.
func (s *Server) Reject(ctx context.Context, tool string, err error) error {
	return s.tools.Reject(ctx, tool, err)
}

// SetSessionIDs gives each MCP session its own id for events and audit
// rows: id maps an MCP session id to it. The HTTP front end sets it
// (package streamhttp), before serving.
func (s *Server) SetSessionIDs(id func(mcpID string) string) { s.sessionID = id }

// Shutdown cancels every call in flight and every later one.
func (s *Server) Shutdown() { s.shutdown() }

// callContext is ctx, cancelled also by Shutdown. It starts no goroutine:
// Shutdown's context calls cancel itself (context.AfterFunc registers it
// there), where a goroutine per call waiting for either end cost each
// call a goroutine start and wake-up, often an idle thread's too
// (docs/decisions.md#per-call-costs).
func (s *Server) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// sessionContext is ctx carrying the call's own session id when the
// server serves several sessions (HTTP).
func (s *Server) sessionContext(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if s.sessionID == nil || ss == nil || ss.ID() == "" {
		return ctx
	}
	return ports.WithSession(ctx, s.sessionID(ss.ID()))
}

// ToolError is err as a tool's result (isError), as every tool answers
// one: for a front end that refuses a call itself.
func ToolError(err error) *mcp.CallToolResult { return result("", err) }

// result turns a tool's outcome into one text block; errors become tool
// errors (isError), never protocol errors.
func result(out string, err error) *mcp.CallToolResult {
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}
}

// Serve runs the server on stdin and stdout until the client disconnects or
// ctx ends; when ctx ends, calls in flight are cancelled. Inbound frames
// pass the frame guard first (package frame): a line that is not a
// JSON-RPC message, or one over Limits.MaxRequestBytes, is answered and
// skipped instead of ending the session.
func (s *Server) Serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	stop := context.AfterFunc(ctx, s.Shutdown)
	defer stop()
	max := s.opts.Limits.MaxRequestBytes
	if max <= 0 {
		max = domain.DefaultLimits().MaxRequestBytes
	}
	// The guard bounds and decodes every frame; the SDK reads its
	// messages, and large tool answers are written by the transport,
	// escaped once.
	t := frame.NewStdio(in, out, frame.StdioOptions{MaxBytes: max, Answer: s.answer, Known: s.Offers, Log: s.opts.Log})
	err := s.Run(t.Context(ctx), t)
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed)) {
		return nil
	}
	return err
}
