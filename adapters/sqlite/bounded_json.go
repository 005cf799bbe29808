package sqlite

import (
	"fmt"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// json_patch and jsonb_patch (RFC 7396 merge) look up every key of the
// patch among the keys of the target object, one by one: two objects of
// 4,000 keys took a second, and two near the value cap would take hours.
// Porting SQLite's JSON engine is out of proportion, so their input is
// bounded instead: a call whose target and patch may hold more than
// patchPairBound pairs of keys is refused with a message saying what to
// do, and any other call runs SQLite's own code, on a private in-memory
// connection that has no replacements, so its answer is SQLite's, byte for
// byte.

// patchPairBound caps keys(target) x keys(patch). Measured on SQLite's
// code, 2,000 keys against 2,000 took 170 ms, so one call stays near a
// fifth of a second: a patch of 10 keys fits a document of 400,000.
const patchPairBound = 4_000_000

// keysAtMost is an upper bound of the keys of all objects in a JSON
// argument: each key of JSON (or JSON5) text is followed by a ':' outside
// any string, and each member of JSONB takes at least two bytes.
func keysAtMost(tls *libc.TLS, v uintptr) int64 {
	if lib.Xsqlite3_value_type(tls, v) == lib.SQLITE_BLOB {
		return int64(lib.Xsqlite3_value_bytes(tls, v))/2 + 1
	}
	return colonsOutsideStrings(textOf(tls, v)) + 1
}

// colonsOutsideStrings counts the ':' of JSON text that are not inside a
// "..." or '...' string. Broken JSON only makes the count larger or
// smaller than the keys SQLite would see before it fails to parse, which
// then costs nothing.
func colonsOutsideStrings(z []byte) int64 {
	var n int64
	var quote byte
	for i := 0; i < len(z); i++ {
		c := z[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == ':':
			n++
		}
	}
	return n
}

// patchFunc is json_patch(T, P) and jsonb_patch(T, P), bounded.
func patchFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	a := args(argv, argc)
	name := "json_patch"
	if lib.Xsqlite3_user_data(tls, ctx) == 1 {
		name = "jsonb_patch"
	}
	target, patch := keysAtMost(tls, a[0]), keysAtMost(tls, a[1])
	if target*patch > patchPairBound {
		resultError(tls, ctx, fmt.Sprintf("%s of a document of up to %d keys with a patch of up to %d keys is refused: "+
			"its cost grows with the product of the two, which may be at most %d; patch a smaller part of the document "+
			"(json_set on one path, or json_patch of json_extract(doc, path)) or use a smaller patch",
			name, target, patch, int64(patchPairBound)))
		return
	}
	evalBuiltin(tls, ctx, "SELECT "+name+"(?1, ?2)", a)
}

// evalBuiltin runs query, a call of one of SQLite's own functions on the
// parameters ?1..?n bound to vals, on a private in-memory connection with
// the calling connection's length limit, and makes its value (or error)
// the result of ctx.
func evalBuiltin(tls *libc.TLS, ctx uintptr, query string, vals []uintptr) {
	name, err := libc.CString(":memory:")
	if err != nil {
		lib.Xsqlite3_result_error_nomem(tls, ctx)
		return
	}
	defer libc.Xfree(tls, name)
	out := libc.Xmalloc(tls, libc.Tsize_t(ptrSize))
	if out == 0 {
		lib.Xsqlite3_result_error_nomem(tls, ctx)
		return
	}
	defer libc.Xfree(tls, out)
	rc := lib.Xsqlite3_open_v2(tls, name, out, lib.SQLITE_OPEN_READWRITE|lib.SQLITE_OPEN_MEMORY, 0)
	db := readPtr(libc.GoBytes(out, ptrSize))
	if db != 0 {
		defer lib.Xsqlite3_close_v2(tls, db)
	}
	if rc != lib.SQLITE_OK {
		lib.Xsqlite3_result_error_nomem(tls, ctx)
		return
	}
	h := handle{db: db, tls: tls}
	h.limit(lib.SQLITE_LIMIT_LENGTH, int32(limitOf(tls, ctx, lib.SQLITE_LIMIT_LENGTH)))
	st, _, err := h.prepare(query)
	if err != nil {
		resultError(tls, ctx, err.Error())
		return
	}
	defer st.finalize()
	for i, v := range vals {
		lib.Xsqlite3_bind_value(tls, st.p, int32(i+1), v)
	}
	switch rc := lib.Xsqlite3_step(tls, st.p); rc {
	case lib.SQLITE_ROW:
		lib.Xsqlite3_result_value(tls, ctx, lib.Xsqlite3_column_value(tls, st.p, 0))
	case lib.SQLITE_TOOBIG:
		lib.Xsqlite3_result_error_toobig(tls, ctx)
	default:
		resultError(tls, ctx, h.lastError(rc).Error())
	}
}
