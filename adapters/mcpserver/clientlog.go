package mcpserver

//lint:file-ignore SA1019 MCP logging is deprecated as of protocol 2026-07-28 (SEP-2577) but stays functional for at least twelve months, and clients of earlier protocol versions use it; README "MCP features"

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientLog is an slog.Handler that sends the server's log records to every
// MCP session whose client asked for them with logging/setLevel, as
// notifications/message at or above the level that client chose (the SDK
// keeps each session's level and compares). Records carry no secrets (the
// bearer token is never logged, and attributes named like a secret are
// dropped), and in read-only mode no absolute path: each is cut to its base
// name, as the tools' answers do. Build it with [NewClientLog] and pass it in
// [Options.ClientLog]; records logged before a client set a level are not
// sent.
type ClientLog struct {
	core  *clientLogCore
	attrs []slog.Attr
	group string
}

type clientLogCore struct {
	mu       sync.Mutex
	server   *Server
	readOnly bool
	handlers map[*mcp.ServerSession]*mcp.LoggingHandler
}

var _ slog.Handler = (*ClientLog)(nil)

// NewClientLog returns a handler that sends nothing until a [Server] is
// built with it.
func NewClientLog() *ClientLog {
	return &ClientLog{core: &clientLogCore{handlers: map[*mcp.ServerSession]*mcp.LoggingHandler{}}}
}

// attach binds the handler to the server whose sessions receive records.
func (h *ClientLog) attach(s *Server, readOnly bool) {
	h.core.mu.Lock()
	defer h.core.mu.Unlock()
	h.core.server, h.core.readOnly = s, readOnly
}

// sessions returns a logging handler per open session, dropping those of
// sessions that have closed.
func (c *clientLogCore) sessions() []*mcp.LoggingHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.server == nil {
		return nil
	}
	open := map[*mcp.ServerSession]bool{}
	var out []*mcp.LoggingHandler
	for ss := range c.server.Sessions() {
		open[ss] = true
		lh := c.handlers[ss]
		if lh == nil {
			lh = mcp.NewLoggingHandler(ss, &mcp.LoggingHandlerOptions{LoggerName: Name})
			c.handlers[ss] = lh
		}
		out = append(out, lh)
	}
	for ss := range c.handlers {
		if !open[ss] {
			delete(c.handlers, ss)
		}
	}
	return out
}

// Enabled reports whether some client wants records of this level.
func (h *ClientLog) Enabled(ctx context.Context, level slog.Level) bool {
	for _, lh := range h.core.sessions() {
		if lh.Enabled(ctx, level) {
			return true
		}
	}
	return false
}

// Handle sends r, scrubbed, to each client that wants it.
func (h *ClientLog) Handle(ctx context.Context, r slog.Record) error {
	h.core.mu.Lock()
	readOnly := h.core.readOnly
	h.core.mu.Unlock()
	out := slog.NewRecord(r.Time, r.Level, scrubText(r.Message, readOnly), r.PC)
	add := func(a slog.Attr) bool {
		if a = scrubAttr(a, readOnly); a.Key != "" {
			if h.group != "" {
				a.Key = h.group + "." + a.Key
			}
			out.AddAttrs(a)
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	for _, lh := range h.core.sessions() {
		if lh.Enabled(ctx, r.Level) {
			_ = lh.Handle(ctx, out.Clone())
		}
	}
	return nil
}

// WithAttrs returns a handler that adds as to every record.
func (h *ClientLog) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	h2.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return &h2
}

// WithGroup returns a handler that prefixes later attribute keys.
func (h *ClientLog) WithGroup(name string) slog.Handler {
	h2 := *h
	if h.group != "" {
		name = h.group + "." + name
	}
	h2.group = name
	return &h2
}

// secretKey matches attribute keys that could hold a secret.
// Like every pattern of the server's, it is compiled at its first use
// (docs/decisions.md#start-up).
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)token|secret|password|authorization|bearer`)
})

// absPath matches an absolute path inside text (a slash-rooted path, or a
// Windows drive path) where a word starts, so "read/write" is kept.
var absPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s"'(=,:])((?:[A-Za-z]:[\\/]|/)[^\s"'(),;=]+)`)
})

// scrubAttr drops secrets and, in read-only mode, cuts absolute paths.
func scrubAttr(a slog.Attr, readOnly bool) slog.Attr {
	if secretKey().MatchString(a.Key) {
		return slog.Attr{}
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, scrubText(v.String(), readOnly))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, scrubText(err.Error(), readOnly))
		}
		return slog.String(a.Key, scrubText(v.String(), readOnly))
	case slog.KindGroup:
		var kept []any
		for _, g := range v.Group() {
			if g = scrubAttr(g, readOnly); g.Key != "" {
				kept = append(kept, g)
			}
		}
		return slog.Group(a.Key, kept...)
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// scrubText cuts every absolute path in s to its base name in read-only
// mode; otherwise s is kept.
func scrubText(s string, readOnly bool) string {
	if !readOnly || !strings.ContainsAny(s, `/\`) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range absPath().FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[4]])
		b.WriteString(filepath.Base(filepath.FromSlash(strings.ReplaceAll(s[m[4]:m[5]], `\`, "/"))))
		last = m[5]
	}
	b.WriteString(s[last:])
	return b.String()
}
