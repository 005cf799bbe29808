package engine

import (
	"encoding/binary"
	"time"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The thin layer over SQLite's C API that agent statements use. Every
// function here runs on a Handle held exclusively by the caller, unless it
// says otherwise.

const ptrSize = int(unsafe.Sizeof(uintptr(0)))

func readPtr(b []byte) uintptr {
	if ptrSize == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
}

// Stmt is one compiled statement.
type Stmt struct {
	h    Handle
	p    uintptr
	ncol int
	// TextCap, when positive, is the cell cap of whoever reads the rows:
	// longer TEXT is copied only up to it, as a [domain.LongText].
	TextCap int
}

// Prepare compiles the first statement of sql and returns the text SQLite
// did not consume. p is 0 when sql holds only whitespace and comments.
func (h Handle) Prepare(sql string) (st Stmt, tail string, err error) {
	return h.PrepareFlags(sql, 0)
}

// PrepareFlags is Prepare with sqlite3_prepare_v3's flags:
// SQLITE_PREPARE_PERSISTENT for a statement that may be kept, so that it
// does not hold the connection's small lookaside memory other compiles use.
func (h Handle) PrepareFlags(sql string, flags uint32) (st Stmt, tail string, err error) {
	z, err := libc.CString(sql)
	if err != nil {
		return Stmt{}, "", err
	}
	defer libc.Xfree(h.tls, z)
	// SQLite writes the statement and tail pointers into C memory; they are
	// read back as bytes, which keeps Go's pointer rules intact.
	out := libc.Xmalloc(h.tls, libc.Tsize_t(2*ptrSize))
	if out == 0 {
		return Stmt{}, "", domain.SQLiteError("out of memory")
	}
	defer libc.Xfree(h.tls, out)
	rc := lib.Xsqlite3_prepare_v3(h.tls, h.db, z, -1, flags, out, out+uintptr(ptrSize))
	ptrs := libc.GoBytes(out, 2*ptrSize) // aliases C memory; read before the free
	p, tailPtr := readPtr(ptrs[:ptrSize]), readPtr(ptrs[ptrSize:])
	if rc != lib.SQLITE_OK {
		if p != 0 {
			lib.Xsqlite3_finalize(h.tls, p)
		}
		return Stmt{}, "", h.lastError(rc)
	}
	consumed := int(tailPtr - z)
	if consumed < 0 || consumed > len(sql) {
		consumed = len(sql)
	}
	st = Stmt{h: h, p: p}
	if p != 0 {
		st.ncol = int(lib.Xsqlite3_column_count(h.tls, p))
	}
	return st, sql[consumed:], nil
}

// Error carries SQLite's primary result code and message; the adapter
// turns it into a domain error once it knows whether the deadline or the
// policy caused it.
type Error struct {
	Code int32
	Msg  string
}

// Error returns SQLite's message.
func (e *Error) Error() string { return e.Msg }

func (h Handle) lastError(rc int32) error {
	msg := libc.GoString(lib.Xsqlite3_errmsg(h.tls, h.db))
	if msg == "" || msg == "not an error" {
		msg = libc.GoString(lib.Xsqlite3_errstr(h.tls, rc))
	}
	return &Error{Code: rc & 0xff, Msg: msg}
}

// Params returns how many bound parameters the statement uses.
func (s Stmt) Params() int {
	return int(lib.Xsqlite3_bind_parameter_count(s.h.tls, s.p))
}

// Readonly reports SQLite's own verdict on whether the program writes.
func (s Stmt) Readonly() bool {
	return lib.Xsqlite3_stmt_readonly(s.h.tls, s.p) != 0
}

// Columns names the result columns.
func (s Stmt) Columns() []string {
	names := make([]string, s.ncol)
	for i := range names {
		names[i] = libc.GoString(lib.Xsqlite3_column_name(s.h.tls, s.p, int32(i)))
	}
	return names
}

// Step advances the statement: true with a row, false when done.
func (s Stmt) Step() (bool, error) {
	switch rc := lib.Xsqlite3_step(s.h.tls, s.p); rc {
	case lib.SQLITE_ROW:
		return true, nil
	case lib.SQLITE_DONE:
		return false, nil
	default:
		return false, s.h.lastError(rc)
	}
}

// Row fills dst with the current row. TEXT is copied as stored (no time
// parsing), only its head when it is longer than textCap; BLOBs are
// represented by their length only, since no tool shows their bytes.
//
// Each cell is read through sqlite3_column_value, one call that takes the
// connection's mutex, and then the sqlite3_value_* accessors, which take
// none (the driver opens connections FULLMUTEX; column_type plus
// column_text plus column_bytes took it three times). SQLite calls such a
// value unprotected: it is read here, on the goroutine that holds the
// connection exclusively, before the next step.
func (s Stmt) Row(dst []any) {
	tls, p := s.h.tls, s.p
	for i := range dst {
		v := lib.Xsqlite3_column_value(tls, p, int32(i))
		switch lib.Xsqlite3_value_type(tls, v) {
		case lib.SQLITE_INTEGER:
			dst[i] = int64(lib.Xsqlite3_value_int64(tls, v))
		case lib.SQLITE_FLOAT:
			dst[i] = lib.Xsqlite3_value_double(tls, v)
		case lib.SQLITE_TEXT:
			t := lib.Xsqlite3_value_text(tls, v)
			n := int(lib.Xsqlite3_value_bytes(tls, v))
			switch text := libc.GoBytes(t, n); { // aliases C memory: copy what is kept
			case t == 0 || n == 0:
				dst[i] = ""
			case s.TextCap > 0 && n > s.TextCap:
				if long, ok := domain.TextHead(text, s.TextCap); ok {
					dst[i] = long
					break
				}
				dst[i] = string(text)
			default:
				dst[i] = string(text)
			}
		case lib.SQLITE_BLOB:
			dst[i] = domain.Blob(lib.Xsqlite3_value_bytes(tls, v))
		default:
			dst[i] = nil
		}
	}
}

// Int64 reads column i of the current row as an integer.
func (s Stmt) Int64(i int) int64 {
	return int64(lib.Xsqlite3_column_int64(s.h.tls, s.p, int32(i)))
}

// Text reads column i of the current row as text (a copy).
func (s Stmt) Text(i int) string {
	t := lib.Xsqlite3_column_text(s.h.tls, s.p, int32(i))
	n := int(lib.Xsqlite3_column_bytes(s.h.tls, s.p, int32(i)))
	if t == 0 || n == 0 {
		return ""
	}
	return string(libc.GoBytes(t, n))
}

// Finalize releases the statement; calling it again does nothing.
func (s *Stmt) Finalize() {
	if s.p != 0 {
		lib.Xsqlite3_finalize(s.h.tls, s.p)
		s.p = 0
	}
}

// Exec runs a statement that returns no rows the caller needs.
func (h Handle) Exec(sql string) error {
	st, _, err := h.Prepare(sql)
	if err != nil {
		return err
	}
	defer st.Finalize()
	if st.Empty() {
		return nil
	}
	for {
		more, err := st.Step()
		if err != nil || !more {
			return err
		}
	}
}

// Changes is the rows the last statement inserted, updated or deleted.
func (h Handle) Changes() int64 { return int64(lib.Xsqlite3_changes64(h.tls, h.db)) }

// TotalChanges is SQLite's count of rows inserted, updated or deleted on the
// connection since it opened, by every statement, triggers and the
// statements virtual-table modules run for themselves included.
func (h Handle) TotalChanges() int64 { return int64(lib.Xsqlite3_total_changes64(h.tls, h.db)) }

// Autocommit reports whether no transaction is open.
func (h Handle) Autocommit() bool { return lib.Xsqlite3_get_autocommit(h.tls, h.db) != 0 }

// Interrupt asks SQLite to stop the running statement. It is safe to call
// from any goroutine, while another steps a statement on h: it uses its own
// thread state.
func (h Handle) Interrupt() {
	tls := libc.NewTLS()
	lib.Xsqlite3_interrupt(tls, h.db)
	tls.Close()
}

// AnyOtherBusy reports whether f holds for the SQL of a statement of h, other
// than skip, that is stepping now (a virtual-table module's own statement,
// for one).
func (h Handle) AnyOtherBusy(skip Stmt, f func(sql string) bool) bool {
	for p := lib.Xsqlite3_next_stmt(h.tls, h.db, 0); p != 0; p = lib.Xsqlite3_next_stmt(h.tls, h.db, p) {
		if p == skip.p || lib.Xsqlite3_stmt_busy(h.tls, p) == 0 {
			continue
		}
		if f(libc.GoString(lib.Xsqlite3_sql(h.tls, p))) {
			return true
		}
	}
	return false
}

// SetBusyTimeout sets how long SQLite waits for a lock another connection
// holds. sqlite3_interrupt does not end that wait, so a call's deadline
// must be applied to it this way.
func (h Handle) SetBusyTimeout(d time.Duration) {
	lib.Xsqlite3_busy_timeout(h.tls, h.db, int32(max(d, 0).Milliseconds()))
}

// Limit sets one of SQLite's run-time limits.
func (h Handle) Limit(id, v int32) { lib.Xsqlite3_limit(h.tls, h.db, id, v) }

// Empty reports whether the SQL compiled to no statement (only whitespace
// and comments).
func (s Stmt) Empty() bool { return s.p == 0 }

// NCol is the number of result columns.
func (s Stmt) NCol() int { return s.ncol }

// Same reports whether s and o are the same compiled statement.
func (s Stmt) Same(o Stmt) bool { return s.p == o.p }

// Reset rewinds the statement to run again; a kept statement is reset,
// not finalized.
func (s Stmt) Reset() { lib.Xsqlite3_reset(s.h.tls, s.p) }

// Fresh is s with its columns counted again: SQLite may have recompiled a
// kept statement, with other columns.
func (s Stmt) Fresh() Stmt {
	s.ncol = int(lib.Xsqlite3_column_count(s.h.tls, s.p))
	return s
}

// MemUsed is the heap the compiled statement holds.
func (s Stmt) MemUsed() int {
	return int(lib.Xsqlite3_stmt_status(s.h.tls, s.p, lib.SQLITE_STMTSTATUS_MEMUSED, 0))
}

// Reprepares is SQLite's count of automatic recompiles of the statement.
func (s Stmt) Reprepares() int32 {
	return lib.Xsqlite3_stmt_status(s.h.tls, s.p, lib.SQLITE_STMTSTATUS_REPREPARE, 0)
}

// FinalizeDetached finalizes a statement whose connection no goroutine
// holds any more (the pool closed it), with a thread state of its own.
func FinalizeDetached(s Stmt) {
	if s.p == 0 {
		return
	}
	tls := libc.NewTLS()
	lib.Xsqlite3_finalize(tls, s.p)
	tls.Close()
}
