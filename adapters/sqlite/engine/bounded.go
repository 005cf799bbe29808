package engine

import (
	"sync"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// SQLite checks for an interrupt between the steps of a statement, and one
// call of a built-in function is one step. A few built-ins cost more than
// linear time in their arguments: on two values near maxValueBytes one
// call runs for minutes and no deadline can stop it (the inventory and its
// measurements are in bounded_measure_test.go). Agent connections get
// these functions replaced, under the same names, by Go ports of SQLite's
// own code (bounded_algo.go, bounded_like.go) that give the same answers
// and stop within milliseconds once the statement is interrupted.
//
// The replacements are registered on a connection before its first agent
// call (every agent call checks), so no agent statement runs without them. Registering a function under a built-in's name hides the built-in
// for that connection only; the server's internal connections keep
// SQLite's. The authorizer still sees each call by its name, so the policy
// is unchanged. Generated columns, CHECK constraints, views and triggers
// call functions by name on the connection running the statement, so they
// get the replacements too.

// boundedFunc is one replaced built-in: its name, its argument count and
// the user-data value its implementation reads.
type boundedFunc struct {
	name  string
	nArg  int32
	data  uintptr
	fn    func(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr)
	flags int32 // beyond UTF-8, deterministic and innocuous
}

// trim() user data, as in SQLite: 1 trims the left, 2 the right.
const (
	trimLeft  = 1
	trimRight = 2
)

// boundedFuncs are the built-ins whose one call is super-linear. The
// one-argument trims (a set of one space) are linear and stay SQLite's.
var boundedFuncs = []boundedFunc{
	{"instr", 2, 0, instrFunc, 0},
	{"replace", 3, 0, replaceFunc, 0},
	{"trim", 2, trimLeft | trimRight, trimFunc, 0},
	{"ltrim", 2, trimLeft, trimFunc, 0},
	{"rtrim", 2, trimRight, trimFunc, 0},
	{"like", 2, 0, likeFunc, 0},
	{"like", 3, 0, likeFunc, 0},
	{"glob", 2, 1, likeFunc, 0},
	{"unhex", 2, 0, unhexFunc, 0},
}

// boundedMark names the connection's client data (sqlite3_set_clientdata)
// that says the replacements are installed: they stay for the life of the
// connection (agent SQL cannot register functions), and SQLite drops the
// mark with the connection, so a new one gets them again.
const boundedMark = "mcp-sqlite-memory.bounded"

// boundedMarkC is boundedMark as a C string, made once for the process:
// every agent call looks the mark up (SQLite copies the name it stores).
var boundedMarkC = sync.OnceValues(func() (uintptr, error) { return libc.CString(boundedMark) })

// RegisterBounded installs the replacements on h's connection, once: the
// built-ins, FTS5's auxiliaries, its module and its tokenizers. Call it
// before the connection runs anything of the agent's.
func (h Handle) RegisterBounded() error {
	mark, err := boundedMarkC()
	if err != nil {
		return err
	}
	if lib.Xsqlite3_get_clientdata(h.tls, h.db, mark) != 0 {
		return nil
	}
	// SQLite's own path-list functions are looked up before anything
	// replaces them.
	if err := h.registerJSONPathBounds(); err != nil {
		return err
	}
	if err := h.registerPatchBounds(); err != nil {
		return err
	}
	const flags = lib.SQLITE_UTF8 | lib.SQLITE_DETERMINISTIC | lib.SQLITE_INNOCUOUS
	for _, f := range boundedFuncs {
		z, err := libc.CString(f.name)
		if err != nil {
			return err
		}
		rc := lib.Xsqlite3_create_function_v2(h.tls, h.db, z, f.nArg, flags|f.flags, f.data, cFunc(f.fn), 0, 0, 0)
		libc.Xfree(h.tls, z)
		if rc != lib.SQLITE_OK {
			return h.lastError(rc)
		}
	}
	if err := h.registerFTS5Bounds(); err != nil {
		return err
	}
	if err := h.registerFTS5Module(); err != nil {
		return err
	}
	if rc := lib.Xsqlite3_set_clientdata(h.tls, h.db, mark, 1, 0); rc != lib.SQLITE_OK {
		return h.lastError(rc)
	}
	return nil
}

// instrFunc is instr(X, Y) (SQLite's instrFunc).
func instrFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	a := args(argv, argc)
	th, tn := lib.Xsqlite3_value_type(tls, a[0]), lib.Xsqlite3_value_type(tls, a[1])
	if th == lib.SQLITE_NULL || tn == lib.SQLITE_NULL {
		return
	}
	if lib.Xsqlite3_value_bytes(tls, a[1]) <= 0 {
		lib.Xsqlite3_result_int(tls, ctx, 1)
		return
	}
	var hay, needle []byte
	isText := true
	switch {
	case th == lib.SQLITE_BLOB && tn == lib.SQLITE_BLOB:
		hay = cBytes(lib.Xsqlite3_value_blob(tls, a[0]), int(lib.Xsqlite3_value_bytes(tls, a[0])))
		needle = cBytes(lib.Xsqlite3_value_blob(tls, a[1]), int(lib.Xsqlite3_value_bytes(tls, a[1])))
		isText = false
	case th != lib.SQLITE_BLOB && tn != lib.SQLITE_BLOB:
		hay = textOf(tls, a[0])
		needle = textOf(tls, a[1])
	default:
		// One blob and one other value: both as text, on copies, so the
		// arguments keep their representation (as SQLite does).
		c1, c2 := lib.Xsqlite3_value_dup(tls, a[0]), lib.Xsqlite3_value_dup(tls, a[1])
		defer lib.Xsqlite3_value_free(tls, c1)
		defer lib.Xsqlite3_value_free(tls, c2)
		if c1 == 0 || c2 == 0 {
			lib.Xsqlite3_result_error_nomem(tls, ctx)
			return
		}
		hay, needle = textOf(tls, c1), textOf(tls, c2)
	}
	st := stopperFor(tls, ctx)
	n := instrPos(hay, needle, isText, st)
	if st.stopped {
		resultInterrupted(tls, ctx)
		return
	}
	lib.Xsqlite3_result_int(tls, ctx, int32(n))
}

// replaceFunc is replace(X, Y, Z) (SQLite's replaceFunc). The output is
// measured first and then written once into memory SQLite owns, so a
// result over the length limit fails as SQLite's does without being built.
func replaceFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	a := args(argv, argc)
	strZ, strP, ok := textZ(tls, a[0])
	if !ok {
		return
	}
	str := strZ[:len(strZ)-1]
	patZ, _, ok := textZ(tls, a[1])
	if !ok {
		return
	}
	if patZ[0] == 0 {
		lib.Xsqlite3_result_text(tls, ctx, strP, int32(len(str)), transient)
		return
	}
	pat := patZ[:len(patZ)-1]
	repZ, _, ok := textZ(tls, a[2])
	if !ok {
		return
	}
	rep := repZ[:len(repZ)-1]
	limit := limitOf(tls, ctx, lib.SQLITE_LIMIT_LENGTH)
	if len(str)+1 > limit {
		lib.Xsqlite3_result_error_toobig(tls, ctx)
		return
	}
	st := stopperFor(tls, ctx)
	n := 0
	if !replaceWalk(str, pat, st, func(piece []byte, match bool) {
		if match {
			n += len(rep)
		} else {
			n += len(piece)
		}
	}) {
		resultInterrupted(tls, ctx)
		return
	}
	if n > limit {
		lib.Xsqlite3_result_error_toobig(tls, ctx)
		return
	}
	out := lib.Xsqlite3_malloc64(tls, uint64(n+1))
	if out == 0 {
		lib.Xsqlite3_result_error_nomem(tls, ctx)
		return
	}
	dst := libc.GoBytes(out, n+1)
	j := 0
	if !replaceWalk(str, pat, st, func(piece []byte, match bool) {
		if match {
			piece = rep
		}
		j += copy(dst[j:], piece)
	}) {
		lib.Xsqlite3_free(tls, out)
		resultInterrupted(tls, ctx)
		return
	}
	dst[n] = 0
	lib.Xsqlite3_result_text64(tls, ctx, out, uint64(n), cFunc(lib.Xsqlite3_free), uint8(lib.SQLITE_UTF8))
}

// trimFunc is trim/ltrim/rtrim(X, Y) (SQLite's trimFunc with a set).
func trimFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	a := args(argv, argc)
	if lib.Xsqlite3_value_type(tls, a[0]) == lib.SQLITE_NULL {
		return
	}
	inZ, inP, ok := textZ(tls, a[0])
	if !ok {
		return
	}
	setZ, _, ok := textZ(tls, a[1])
	if !ok {
		return
	}
	flags := lib.Xsqlite3_user_data(tls, ctx)
	in := inZ[:len(inZ)-1]
	st := stopperFor(tls, ctx)
	lo, hi, ok := trimBytes(in, trimSet(setZ), flags&trimLeft != 0, flags&trimRight != 0, st)
	if !ok {
		resultInterrupted(tls, ctx)
		return
	}
	lib.Xsqlite3_result_text(tls, ctx, inP+uintptr(lo), int32(hi-lo), transient)
}

// likeFunc is like(Y, X), like(Y, X, E) and glob(Y, X) (SQLite's
// likeFunc); glob's user data is 1.
func likeFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	a := args(argv, argc)
	info := likeInfo
	if lib.Xsqlite3_user_data(tls, ctx) == 1 {
		info = globInfo
	}
	if lib.Xsqlite3_value_type(tls, a[0]) == lib.SQLITE_BLOB || lib.Xsqlite3_value_type(tls, a[1]) == lib.SQLITE_BLOB {
		lib.Xsqlite3_result_int(tls, ctx, 0)
		return
	}
	if int(lib.Xsqlite3_value_bytes(tls, a[0])) > limitOf(tls, ctx, lib.SQLITE_LIMIT_LIKE_PATTERN_LENGTH) {
		resultError(tls, ctx, "LIKE or GLOB pattern too complex")
		return
	}
	escape := uint32(info.matchSet)
	if argc == 3 {
		esc, _, ok := textZ(tls, a[2])
		if !ok {
			return
		}
		if utf8CharLen(esc) != 1 {
			resultError(tls, ctx, "ESCAPE expression must be a single character")
			return
		}
		i := 0
		escape = utf8Read(esc, &i)
		if escape == uint32(info.matchAll) {
			info.matchAll = 0
		}
		if escape == uint32(info.matchOne) {
			info.matchOne = 0
		}
	}
	pat, _, okB := textZ(tls, a[0])
	str, _, okA := textZ(tls, a[1])
	if !okA || !okB {
		return
	}
	st := stopperFor(tls, ctx)
	r := patternCompare(pat, 0, str, 0, &info, escape, st)
	if r == likeStopped {
		resultInterrupted(tls, ctx)
		return
	}
	var v int32
	if r == likeMatch {
		v = 1
	}
	lib.Xsqlite3_result_int(tls, ctx, v)
}

// unhexFunc is unhex(X, Y) (SQLite's unhexFunc with characters to skip).
func unhexFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	a := args(argv, argc)
	hexZ, _, okHex := textZ(tls, a[0])
	passZ, _, okPass := textZ(tls, a[1])
	if !okHex || !okPass {
		return
	}
	size := (len(hexZ)-1)/2 + 1
	if size > limitOf(tls, ctx, lib.SQLITE_LIMIT_LENGTH) {
		lib.Xsqlite3_result_error_toobig(tls, ctx)
		return
	}
	out := lib.Xsqlite3_malloc64(tls, uint64(size))
	if out == 0 {
		lib.Xsqlite3_result_error_nomem(tls, ctx)
		return
	}
	st := stopperFor(tls, ctx)
	n, valid, stopped := unhexInto(libc.GoBytes(out, size), hexZ, passZ[:len(passZ)-1], st)
	switch {
	case stopped:
		lib.Xsqlite3_free(tls, out)
		resultInterrupted(tls, ctx)
	case !valid:
		lib.Xsqlite3_free(tls, out)
	default:
		lib.Xsqlite3_result_blob(tls, ctx, out, int32(n), cFunc(lib.Xsqlite3_free))
	}
}
