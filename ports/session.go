package ports

import "context"

// sessionKey is the context key of a call's session id.
type sessionKey struct{}

// WithSession returns ctx carrying the id of the client session a tool call
// belongs to. A driving adapter that serves several sessions at once (MCP
// over HTTP) sets it on every call, so each session's events and audit rows
// carry its own id while every session shares the core's process-wide
// bounds. Without it the core uses the process's own session id.
func WithSession(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionFrom returns the session id WithSession put in ctx, or "" when
// there is none.
func SessionFrom(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}
