package engine

import (
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// The C-API plumbing the replacements of bounded.go share: function
// pointers, arguments and results, on the Handle of the connection SQLite
// calls them on.

// cFunc turns a Go function into the function pointer the transpiled
// SQLite calls, the way modernc.org/sqlite does for its own callbacks (a Go
// func value is a pointer to its code pointer; see golang.org/s/go11func).
func cFunc[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f}))
}

// args reads the argc sqlite3_value pointers at argv.
func args(argv uintptr, argc int32) []uintptr {
	raw := libc.GoBytes(argv, int(argc)*ptrSize)
	out := make([]uintptr, argc)
	for i := range out {
		out[i] = readPtr(raw[i*ptrSize:])
	}
	return out
}

// cBytes aliases n bytes of SQLite memory at p (nil for none). The slice
// is valid only while SQLite keeps the value.
func cBytes(p uintptr, n int) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return libc.GoBytes(p, n)
}

// textZ returns value v as text with its NUL terminator (SQLite's
// sqlite3_value_text), the pointer, and ok false for NULL.
func textZ(tls *libc.TLS, v uintptr) (z []byte, p uintptr, ok bool) {
	p = lib.Xsqlite3_value_text(tls, v)
	if p == 0 {
		return nil, 0, false
	}
	n := int(lib.Xsqlite3_value_bytes(tls, v))
	return libc.GoBytes(p, n+1), p, true
}

// stopperFor watches the interrupt flag of the connection running ctx.
func stopperFor(tls *libc.TLS, ctx uintptr) *stopper {
	db := lib.Xsqlite3_context_db_handle(tls, ctx)
	return &stopper{interrupted: func() bool { return lib.Xsqlite3_is_interrupted(tls, db) != 0 }}
}

func resultInterrupted(tls *libc.TLS, ctx uintptr) {
	lib.Xsqlite3_result_error_code(tls, ctx, lib.SQLITE_INTERRUPT)
}

func resultError(tls *libc.TLS, ctx uintptr, msg string) {
	z, err := libc.CString(msg)
	if err != nil {
		lib.Xsqlite3_result_error_nomem(tls, ctx)
		return
	}
	lib.Xsqlite3_result_error(tls, ctx, z, -1)
	libc.Xfree(tls, z)
}

// limitOf reads one of the connection's run-time limits.
func limitOf(tls *libc.TLS, ctx uintptr, id int32) int {
	return int(lib.Xsqlite3_limit(tls, lib.Xsqlite3_context_db_handle(tls, ctx), id, -1))
}

// transient is SQLITE_TRANSIENT: SQLite copies the result.
const transient = ^uintptr(0)

// textOf is value v as text, without its terminator.
func textOf(tls *libc.TLS, v uintptr) []byte {
	p := lib.Xsqlite3_value_text(tls, v)
	return cBytes(p, int(lib.Xsqlite3_value_bytes(tls, v)))
}
