package ports

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TableSink receives, for a client that asked for structured results, the
// typed table a tool call answers with (its CSV stays the text answer). It
// is called once per table, before the rows are added to it.
type TableSink func(*domain.TableData)

// tableSinkKey is the context key of [WithTableSink].
type tableSinkKey struct{}

// WithTableSink returns ctx carrying sink.
func WithTableSink(ctx context.Context, sink TableSink) context.Context {
	return context.WithValue(ctx, tableSinkKey{}, sink)
}

// TableSinkOf returns the sink in ctx, or nil.
func TableSinkOf(ctx context.Context) TableSink {
	s, _ := ctx.Value(tableSinkKey{}).(TableSink)
	return s
}
