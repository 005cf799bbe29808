package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// What an agent call or a server statement sees go wrong, as the error the
// agent gets: a *domain.Error of the right kind whose text says what to do
// next, with the database's path cut to its file name in SQLite's messages.

// wording is what the Store's messages name: the file (never its folder)
// and the query deadline. The Store embeds it, so its path and name are
// the Store's.
type wording struct {
	path         string // absolute path (read-only: every link resolved), scrubbed from messages
	name         string // file name shown instead
	queryTimeout time.Duration
}

// translate maps what went wrong to the error the agent sees.
func (s *wording) translate(ctx context.Context, c *call, err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	var se *engine.Error
	if !errors.As(err, &se) {
		return s.connError(ctx, err)
	}
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return errCancelled()
	case ctx.Err() != nil && (se.Code == engine.CodeInterrupt || errors.Is(ctx.Err(), context.DeadlineExceeded)):
		return s.timeoutError()
	case se.Code == engine.CodeBusy:
		return s.busyError()
	case se.Code == engine.CodeNoMem:
		return heapError()
	case se.Code == engine.CodeCorrupt || se.Code == engine.CodeNotADB:
		return s.damagedError(se.Msg)
	case c != nil && c.denial != "" && se.Code == engine.CodeAuth:
		return domain.Errorf(domain.ErrPolicy, "%s", c.denial)
	case c != nil && c.denial != "" && strings.Contains(se.Msg, "not authorized"):
		return domain.Errorf(domain.ErrPolicy, "%s", c.denial)
	}
	if name, ok := strings.CutPrefix(se.Msg, "no such table: "); ok && strings.EqualFold(name, "generate_series") {
		return domain.SQLiteError(se.Msg + "; " + domain.GenerateSeriesHint)
	}
	return domain.SQLiteError(s.scrub(se.Msg))
}

func (s *wording) timeoutError() error {
	return domain.Errorf(domain.ErrTimeout, "query exceeded %ss and was cancelled; narrow it, add a LIMIT, or add an index", domain.FormatSeconds(s.queryTimeout))
}

// lockError words a failure to take the write lock (BEGIN IMMEDIATE): when
// another connection keeps it past the busy timeout, or past the call's
// deadline while this one waits, the agent is told the database is locked,
// not that its query was slow.
func (s *wording) lockError(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return errCancelled()
	case ctx.Err() != nil || isBusy(err):
		return s.busyError()
	}
	return err
}

// primaryCode returns the SQLite primary result code err carries, from
// the C API (engine.Error) or from the database/sql driver; ok is false
// for an error that did not come from SQLite. Errors are told apart by
// this code, never by their wording.
func primaryCode(err error) (code int32, ok bool) {
	var se *engine.Error
	if errors.As(err, &se) {
		return se.Code, true
	}
	var me *msqlite.Error
	if errors.As(err, &me) {
		return int32(me.Code() & 0xff), true
	}
	return 0, false
}

// isBusy reports whether err is SQLite's SQLITE_BUSY ("database is locked"),
// from the C API or from the database/sql driver.
func isBusy(err error) bool {
	code, ok := primaryCode(err)
	return ok && code == engine.CodeBusy
}

// busyError says the write lock stayed taken by someone else.
func (s *wording) busyError() error {
	wait := busyTimeout
	if q := s.queryTimeout; q > 0 && q < wait {
		wait = q
	}
	return domain.Errorf(domain.ErrBusy, "%s is locked by another program or server process that holds a write transaction on it; "+
		"waited %ss, nothing was changed. Retry the call in a moment; if it stays locked, end that program's transaction",
		s.name, domain.FormatSeconds(wait))
}

// damagedError keeps SQLite's message and says what it means: the file was
// cut short or overwritten behind SQLite's back, and the way back is a copy.
func (s *wording) damagedError(msg string) error {
	return domain.SQLiteError(s.scrub(msg) + ". " + damagedHint(s.name))
}

// damagedHint is what to do about a damaged database file.
func damagedHint(name string) string {
	return fmt.Sprintf("%[1]s is damaged (cut short, or overwritten by another program); stop writing to it and "+
		"restore the newest copy of it from the snapshot folder, or save what is left with the sqlite3 shell: "+
		"sqlite3 %[1]s .recover", name)
}

func errCancelled() error {
	return domain.Errorf(domain.ErrTimeout, "the call was cancelled before it finished (the client gave up or the server is shutting down); nothing was changed")
}

// connError reports a failure to get or use a connection.
func (s *wording) connError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errCancelled()
	}
	if ctx.Err() != nil {
		return s.timeoutError()
	}
	if isBusy(err) {
		return s.busyError()
	}
	var me *msqlite.Error
	if errors.As(err, &me) && me.Code()&0xff == engine.CodeNoMem {
		return heapError()
	}
	if errors.As(err, &me) && (me.Code()&0xff == engine.CodeCorrupt || me.Code()&0xff == engine.CodeNotADB) {
		return s.damagedError(err.Error())
	}
	return domain.SQLiteError(s.scrub(err.Error()))
}

// scrub removes absolute paths of the database from a message: agents see the
// file's name only (docs/decisions.md#errors).
func (s *wording) scrub(msg string) string {
	if s.path == "" {
		return msg
	}
	return strings.ReplaceAll(msg, s.path, s.name)
}
