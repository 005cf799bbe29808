package engine

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
// do, and any other call runs SQLite's own implementation (see
// bounded_builtin.go), so its answer is SQLite's, byte for byte.

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

// registerPatchBounds replaces json_patch and jsonb_patch on a connection.
func (h Handle) registerPatchBounds() error {
	const flags = lib.SQLITE_UTF8 | lib.SQLITE_DETERMINISTIC | lib.SQLITE_INNOCUOUS | lib.SQLITE_SUBTYPE | lib.SQLITE_RESULT_SUBTYPE
	for _, name := range []string{"json_patch", "jsonb_patch"} {
		ref, err := h.findBuiltin(name, 2)
		if err != nil {
			return err
		}
		z, err := libc.CString(name)
		if err != nil {
			return err
		}
		rc := lib.Xsqlite3_create_function_v2(h.tls, h.db, z, 2, flags, ref.userData, cFunc(patchFunc), 0, 0, 0)
		libc.Xfree(h.tls, z)
		if rc != lib.SQLITE_OK {
			return h.lastError(rc)
		}
	}
	return nil
}

// patchFunc is json_patch(T, P) and jsonb_patch(T, P), bounded.
func patchFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	name, ref, ok := calledBuiltin(tls, ctx)
	if !ok {
		return
	}
	a := args(argv, argc)
	target, patch := keysAtMost(tls, a[0]), keysAtMost(tls, a[1])
	if target*patch > patchPairBound {
		resultError(tls, ctx, fmt.Sprintf("%s of a document of up to %d keys with a patch of up to %d keys is refused: "+
			"its cost grows with the product of the two, which may be at most %d; patch a smaller part of the document "+
			"(json_set on one path, or json_patch of json_extract(doc, path)) or use a smaller patch",
			name, target, patch, int64(patchPairBound)))
		return
	}
	callBuiltin(tls, ref, ctx, argc, argv)
}
