package domain

import "context"

// originKey is the context key of [WithOrigin].
type originKey struct{}

// WithOrigin returns ctx carrying the name refusals give the statement
// compiled under it, for a tool whose statement runs under another tool's
// tier (create_view's SELECT runs under read_query's).
func WithOrigin(ctx context.Context, origin string) context.Context {
	return context.WithValue(ctx, originKey{}, origin)
}

// OriginOf returns the origin [WithOrigin] put in ctx, or "".
func OriginOf(ctx context.Context) string {
	o, _ := ctx.Value(originKey{}).(string)
	return o
}
