package sqlite

import (
	"encoding/binary"
	"time"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// This file is the thin layer over SQLite's C API that agent statements use.
// Every function here runs on a handle held exclusively by the caller.

const ptrSize = int(unsafe.Sizeof(uintptr(0)))

func readPtr(b []byte) uintptr {
	if ptrSize == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
}

// prepared is one compiled statement.
type prepared struct {
	h    handle
	p    uintptr
	ncol int
	// textCap, when positive, is the cell cap of whoever reads the rows:
	// longer TEXT is copied only up to it, as a [domain.LongText].
	textCap int
}

// prepare compiles the first statement of sql and returns the text SQLite
// did not consume. p is 0 when sql holds only whitespace and comments.
func (h handle) prepare(sql string) (st prepared, tail string, err error) {
	return h.prepareFlags(sql, 0)
}

// prepareFlags is prepare with sqlite3_prepare_v3's flags:
// SQLITE_PREPARE_PERSISTENT for a statement that may be kept, so that it
// does not hold the connection's small lookaside memory other compiles use.
func (h handle) prepareFlags(sql string, flags uint32) (st prepared, tail string, err error) {
	z, err := libc.CString(sql)
	if err != nil {
		return prepared{}, "", err
	}
	defer libc.Xfree(h.tls, z)
	// SQLite writes the statement and tail pointers into C memory; they are
	// read back as bytes, which keeps Go's pointer rules intact.
	out := libc.Xmalloc(h.tls, libc.Tsize_t(2*ptrSize))
	if out == 0 {
		return prepared{}, "", domain.SQLiteError("out of memory")
	}
	defer libc.Xfree(h.tls, out)
	rc := lib.Xsqlite3_prepare_v3(h.tls, h.db, z, -1, flags, out, out+uintptr(ptrSize))
	ptrs := libc.GoBytes(out, 2*ptrSize) // aliases C memory; read before the free
	p, tailPtr := readPtr(ptrs[:ptrSize]), readPtr(ptrs[ptrSize:])
	if rc != lib.SQLITE_OK {
		if p != 0 {
			lib.Xsqlite3_finalize(h.tls, p)
		}
		return prepared{}, "", h.lastError(rc)
	}
	consumed := int(tailPtr - z)
	if consumed < 0 || consumed > len(sql) {
		consumed = len(sql)
	}
	st = prepared{h: h, p: p}
	if p != 0 {
		st.ncol = int(lib.Xsqlite3_column_count(h.tls, p))
	}
	return st, sql[consumed:], nil
}

// sqliteError carries SQLite's result code and message; the engine turns it
// into a domain error once it knows whether the deadline or the policy
// caused it.
type sqliteError struct {
	code int32
	msg  string
}

// Error returns SQLite's message.
func (e *sqliteError) Error() string { return e.msg }

func (h handle) lastError(rc int32) error {
	msg := libc.GoString(lib.Xsqlite3_errmsg(h.tls, h.db))
	if msg == "" || msg == "not an error" {
		msg = libc.GoString(lib.Xsqlite3_errstr(h.tls, rc))
	}
	return &sqliteError{code: rc & 0xff, msg: msg}
}

// params returns how many bound parameters the statement uses.
func (s prepared) params() int {
	return int(lib.Xsqlite3_bind_parameter_count(s.h.tls, s.p))
}

// readonly reports SQLite's own verdict on whether the program writes.
func (s prepared) readonly() bool {
	return lib.Xsqlite3_stmt_readonly(s.h.tls, s.p) != 0
}

func (s prepared) columns() []string {
	names := make([]string, s.ncol)
	for i := range names {
		names[i] = libc.GoString(lib.Xsqlite3_column_name(s.h.tls, s.p, int32(i)))
	}
	return names
}

// step advances the statement: true with a row, false when done.
func (s prepared) step() (bool, error) {
	switch rc := lib.Xsqlite3_step(s.h.tls, s.p); rc {
	case lib.SQLITE_ROW:
		return true, nil
	case lib.SQLITE_DONE:
		return false, nil
	default:
		return false, s.h.lastError(rc)
	}
}

// row fills dst with the current row. TEXT is copied as stored (no time
// parsing), only its head when it is longer than textCap; BLOBs are
// represented by their length only, since no tool shows their bytes.
//
// Each cell is read through sqlite3_column_value, one call that takes the
// connection's mutex, and then the sqlite3_value_* accessors, which take
// none (the driver opens connections FULLMUTEX; column_type plus
// column_text plus column_bytes took it three times). SQLite calls such a
// value unprotected: it is read here, on the goroutine that holds the
// connection exclusively, before the next step.
func (s prepared) row(dst []any) {
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
			case s.textCap > 0 && n > s.textCap:
				if long, ok := domain.TextHead(text, s.textCap); ok {
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

// finalize releases the statement; calling it again does nothing.
// int64 reads column i of the current row as an integer.
func (s prepared) int64(i int) int64 {
	return int64(lib.Xsqlite3_column_int64(s.h.tls, s.p, int32(i)))
}

// text reads column i of the current row as text (a copy).
func (s prepared) text(i int) string {
	t := lib.Xsqlite3_column_text(s.h.tls, s.p, int32(i))
	n := int(lib.Xsqlite3_column_bytes(s.h.tls, s.p, int32(i)))
	if t == 0 || n == 0 {
		return ""
	}
	return string(libc.GoBytes(t, n))
}

func (s *prepared) finalize() {
	if s.p != 0 {
		lib.Xsqlite3_finalize(s.h.tls, s.p)
		s.p = 0
	}
}

// exec runs a statement that returns no rows the caller needs.
func (h handle) exec(sql string) error {
	st, _, err := h.prepare(sql)
	if err != nil {
		return err
	}
	defer st.finalize()
	if st.p == 0 {
		return nil
	}
	for {
		more, err := st.step()
		if err != nil || !more {
			return err
		}
	}
}

func (h handle) changes() int64 { return int64(lib.Xsqlite3_changes64(h.tls, h.db)) }

// totalChanges is SQLite's count of rows inserted, updated or deleted on the
// connection since it opened, by every statement, triggers and the
// statements virtual-table modules run for themselves included.
func (h handle) totalChanges() int64 { return int64(lib.Xsqlite3_total_changes64(h.tls, h.db)) }

func (h handle) autocommit() bool { return lib.Xsqlite3_get_autocommit(h.tls, h.db) != 0 }

// interrupt asks SQLite to stop the running statement. It is safe to call
// from another goroutine; it uses its own thread state.
func interrupt(db uintptr) {
	tls := libc.NewTLS()
	lib.Xsqlite3_interrupt(tls, db)
	tls.Close()
}

// setBusyTimeout sets how long SQLite waits for a lock another connection
// holds. sqlite3_interrupt does not end that wait, so a call's deadline
// must be applied to it this way.
func (h handle) setBusyTimeout(d time.Duration) {
	lib.Xsqlite3_busy_timeout(h.tls, h.db, int32(max(d, 0).Milliseconds()))
}

// limit sets one of SQLite's run-time limits.
func (h handle) limit(id, v int32) { lib.Xsqlite3_limit(h.tls, h.db, id, v) }
