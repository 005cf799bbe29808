package ports

import "context"

// Progress receives how far a long tool call has come, for a client that
// asked to be told (MCP's progress token). done grows during one call; total
// is 0 when unknown. Report may be called from several goroutines and must
// not block for long; a driving adapter implements it and puts it in the
// call's context with [WithProgress].
type Progress interface {
	Report(done, total float64, message string)
}

// progressKey is the context key of [WithProgress].
type progressKey struct{}

// WithProgress returns ctx carrying p, which the core tells how far the call
// has come.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf returns the [Progress] in ctx, or nil when nobody listens.
func ProgressOf(ctx context.Context) Progress {
	p, _ := ctx.Value(progressKey{}).(Progress)
	return p
}

// ReportProgress tells ctx's [Progress], if any, how far the call has come.
func ReportProgress(ctx context.Context, done, total float64, message string) {
	if p := ProgressOf(ctx); p != nil {
		p.Report(done, total, message)
	}
}
