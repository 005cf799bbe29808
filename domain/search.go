package domain

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// SearchQuery is what a text search engine is asked to find.
type SearchQuery struct {
	// Pattern is a regular expression, or a literal when FixedStrings is set.
	Pattern string
	// IgnoreCase matches without regard to letter case.
	IgnoreCase bool
	// FixedStrings treats Pattern as a literal string.
	FixedStrings bool
}

// LineMatch is the first match of a [SearchQuery] in one line.
type LineMatch struct {
	// Index is the 0-based position of the line in the stream searched.
	Index int
	// Text is the whole line as searched.
	Text string
	// Start and End are byte offsets of the first match in Text.
	Start, End int
}

// Validate refuses what no engine can search for: a pattern that is not
// UTF-8, holds a NUL (it cannot be passed to a process) or a line break
// (values are searched one line each).
func (q SearchQuery) Validate() error {
	switch {
	case !utf8.ValidString(q.Pattern):
		return Errorf(ErrInvalidArgument, "the pattern is not valid UTF-8; pass it as UTF-8 text")
	case strings.IndexByte(q.Pattern, 0) >= 0:
		return Errorf(ErrInvalidArgument, `the pattern contains a NUL character; write it as \x00 with fixed_strings=false`)
	case strings.IndexByte(q.Pattern, '\n') >= 0:
		return LineBreakError()
	}
	return nil
}

// LineBreakError refuses a pattern that would have to match a line break.
func LineBreakError() error {
	return Errorf(ErrInvalidArgument,
		"the pattern cannot match a line break: values are searched one line each, with line breaks shown as %s (U+23CE); write %s instead",
		LineBreakMark, LineBreakMark)
}

// LookaroundError refuses lookahead and lookbehind, which neither search
// engine has; both engines return this same message.
func LookaroundError() error {
	return Errorf(ErrInvalidArgument,
		"unsupported regex: lookahead and lookbehind such as (?=...) and (?<!...) are not part of "+ToolSearchText+"'s regex syntax (Rust regex, in either engine); match the surrounding text instead, or narrow the rows with where")
}

// BackreferenceError refuses a backreference (\1, (?P=name)), which neither
// search engine has; both engines return this same message.
func BackreferenceError() error {
	return Errorf(ErrInvalidArgument,
		`unsupported regex: backreferences such as \1 or (?P=name) are not part of `+ToolSearchText+`'s regex syntax (Rust regex, in either engine); spell the repeated text out, or write a character by its code as \x{41}`)
}

// TimeLeft is the time left before ctx's deadline, rounded up for messages
// ("exceeded 10s"): to 0.1 s above a second, to 1 ms below. 0 without a
// deadline.
func TimeLeft(ctx context.Context) time.Duration {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	d := time.Until(deadline)
	if d >= time.Second {
		return (d + 99*time.Millisecond).Truncate(100 * time.Millisecond)
	}
	return max((d + time.Millisecond - 1).Truncate(time.Millisecond), 0)
}
