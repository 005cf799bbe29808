package domain

import (
	"errors"
	"fmt"
)

// Kinds of failure. Every error the core hands to a driving adapter is an
// [*Error] whose Kind is one of these sentinels, so adapters decide what to do
// with errors.Is and never by reading the message.
var (
	// ErrInvalidArgument means the caller passed a value the tool cannot use;
	// the message names the argument and what to pass instead.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNotFound means a named table, view or column does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means an object with that name already exists.
	ErrConflict = errors.New("conflict")
	// ErrPolicy means the statement policy refused an action.
	ErrPolicy = errors.New("policy violation")
	// ErrTimeout means a call ran past its deadline and was cancelled.
	ErrTimeout = errors.New("timeout")
	// ErrGuard means the UPDATE guard rolled a statement back.
	ErrGuard = errors.New("update guard")
	// ErrSnapshot means a required snapshot could not be written.
	ErrSnapshot = errors.New("snapshot failed")
	// ErrSQLite means SQLite itself rejected the statement; the message
	// carries SQLite's own text.
	ErrSQLite = errors.New("sqlite error")
	// ErrSearch means the text search engine failed or refused the search.
	ErrSearch = errors.New("search failed")
	// ErrUnavailable means a capability is switched off or missing.
	ErrUnavailable = errors.New("unavailable")
	// ErrBusy means another connection (another program, or another server
	// process) held the database's write lock for longer than the call
	// could wait; nothing was changed and the call may be retried.
	ErrBusy = errors.New("database busy")
	// ErrMemory means the call needed more memory than the server's budget
	// allows (SQLite's heap limit); it was stopped, nothing was changed, and
	// the message says what to narrow and which setting to raise.
	ErrMemory = errors.New("out of memory")
	// ErrDeclined means a person was to approve the statement first and it
	// was not approved (declined, cancelled, unanswered, or nobody could be
	// asked): nothing ran.
	ErrDeclined = errors.New("not approved")
	// ErrInternal means the server failed in a way it does not expect (an
	// error no adapter translated, a bug): the agent gets [Internal]'s
	// fixed message, the operator the cause in the server's log.
	ErrInternal = errors.New("internal error")
)

// Error is a failure whose Message is safe to show to the agent verbatim:
// it never holds a stack trace or an absolute path other than a snapshot's.
type Error struct {
	// Kind is one of the sentinels above.
	Kind error
	// Message is the text the agent sees; it says what to do next.
	Message string
}

// Error returns the message the agent sees.
func (e *Error) Error() string { return e.Message }

// Unwrap exposes Kind to errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// Errorf builds an [*Error] of the given kind.
func Errorf(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Internal is the one message of an [ErrInternal]: its cause is never
// shown to the agent (it may hold paths, SQL or a driver's text that no
// rule has vetted), only logged.
func Internal() *Error {
	return &Error{Kind: ErrInternal, Message: "internal error: the server failed in a way it does not expect and wrote the cause to its log (stderr); " +
		"retry the call once, and if it fails again, tell the user, who can read the cause there"}
}

// SQLiteError wraps SQLite's own message as `SQLite error: <message>`.
func SQLiteError(message string) *Error {
	return &Error{Kind: ErrSQLite, Message: "SQLite error: " + message}
}

// GenerateSeriesHint follows SQLite's "no such table: generate_series":
// the table-valued function is not compiled into this SQLite, and the
// recursive CTE it names makes the same rows under the same caps.
const GenerateSeriesHint = "generate_series is not built into this SQLite; count with a recursive CTE instead: " + GenerateSeriesCTE

// GenerateSeriesCTE is the hint's statement: the integers 1 to 100 in a
// column named value, as generate_series(1, 100) would give them.
const GenerateSeriesCTE = "WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM s WHERE value < 100) SELECT value FROM s"
