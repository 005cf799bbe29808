package litestream

import (
	"context"
	"log/slog"
)

// quietHandler passes on only records at or above min: Litestream reports
// every monitor it starts at INFO, which is noise in the server's log unless
// the user asked for debug logging.
type quietHandler struct {
	slog.Handler
	min slog.Level
}

// Enabled drops records below min.
func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

// WithAttrs keeps the floor on derived handlers.
func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(as), h.min}
}

// WithGroup keeps the floor on derived handlers.
func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name), h.min}
}

// libraryLogger is the logger handed to Litestream: warnings and errors
// only, unless verbose.
func libraryLogger(log *slog.Logger, verbose bool) *slog.Logger {
	log = log.With("component", "litestream")
	if verbose {
		return log
	}
	return slog.New(quietHandler{log.Handler(), slog.LevelWarn})
}
