package engine

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// The JSON functions that take a list of paths (json_extract, json_set,
// json_insert, json_replace, json_remove, json_array_insert and their
// jsonb_ forms) look up every path in the document, and the edits move it:
// one call costs paths x document size, in one step. 99 paths on a 7 MB
// object took 1.6 s; SQLite allows 1,000 arguments. Their inputs are
// bounded: a call of more than one path over more than jsonPathWorkBound
// path-bytes is refused with a message saying what to do; any other call
// runs SQLite's own implementation, called directly from the replacement
// with the same context and arguments, so its answer (and its parse
// cache) is SQLite's.

// jsonPathWorkBound caps paths x document bytes: about 2.3 ns each on
// SQLite's code, so about a quarter of a second. An 8 MB document takes
// 12 paths in one call, a 1 MB one 100.
const jsonPathWorkBound = 100_000_000

// jsonPathFuncs are the bounded path-list functions; pairs says the paths
// come with a value each.
var jsonPathFuncs = []struct {
	name  string
	pairs bool
}{
	{"json_extract", false}, {"jsonb_extract", false}, {"json_remove", false}, {"jsonb_remove", false},
	{"json_set", true}, {"jsonb_set", true}, {"json_insert", true}, {"jsonb_insert", true},
	{"json_replace", true}, {"jsonb_replace", true}, {"json_array_insert", true}, {"jsonb_array_insert", true},
}

// builtinRef is one of SQLite's own scalar function implementations and
// the user data it reads (its flags).
type builtinRef struct{ fn, userData uintptr }

// builtins holds SQLite's implementations by function name, found once
// (they are static code and data, the same for every connection).
var builtins sync.Map

// findBuiltin finds SQLite's own implementation of a scalar function: it
// compiles a call with nArg arguments on a connection that does not
// replace it yet and reads the function definition from the compiled
// program.
func (h Handle) findBuiltin(name string, nArg int) (builtinRef, error) {
	if v, ok := builtins.Load(name); ok {
		return v.(builtinRef), nil
	}
	params := make([]string, nArg)
	for i := range params {
		params[i] = fmt.Sprintf("?%d", i+1)
	}
	st, _, err := h.Prepare("SELECT " + name + "(" + strings.Join(params, ", ") + ")")
	if err != nil {
		return builtinRef{}, err
	}
	defer st.Finalize()
	var (
		vdbe lib.TVdbe
		op   lib.TVdbeOp
		cx   lib.Tsqlite3_context
		fd   lib.TFuncDef
	)
	aOp, nOp := ptrAt(st.p+unsafe.Offsetof(vdbe.FaOp)), int(int32At(st.p+unsafe.Offsetof(vdbe.FnOp)))
	for i := range nOp {
		o := aOp + uintptr(i)*unsafe.Sizeof(op)
		code := libc.GoBytes(o+unsafe.Offsetof(op.Fopcode), 1)[0]
		p4type := int8(libc.GoBytes(o+unsafe.Offsetof(op.Fp4type), 1)[0])
		if (code != lib.OP_Function && code != lib.OP_PureFunc) || p4type != lib.P4_FUNCCTX {
			continue
		}
		def := ptrAt(ptrAt(o+unsafe.Offsetof(op.Fp4)) + unsafe.Offsetof(cx.FpFunc))
		if !strings.EqualFold(libc.GoString(ptrAt(def+unsafe.Offsetof(fd.FzName))), name) {
			continue
		}
		ref := builtinRef{fn: ptrAt(def + unsafe.Offsetof(fd.FxSFunc)), userData: ptrAt(def + unsafe.Offsetof(fd.FpUserData))}
		if ref.fn == 0 || ref.fn == cFunc(jsonPathsFunc) || ref.fn == cFunc(patchFunc) {
			break
		}
		builtins.Store(name, ref)
		return ref, nil
	}
	return builtinRef{}, fmt.Errorf("modernc.org/sqlite: SQLite's %s was not found in a compiled call; pin the driver version in go.mod", name)
}

// registerJSONPathBounds replaces the path-list functions on a connection.
func (h Handle) registerJSONPathBounds() error {
	const flags = lib.SQLITE_UTF8 | lib.SQLITE_DETERMINISTIC | lib.SQLITE_INNOCUOUS | lib.SQLITE_SUBTYPE | lib.SQLITE_RESULT_SUBTYPE
	for _, f := range jsonPathFuncs {
		ref, err := h.findBuiltin(f.name, 3)
		if err != nil {
			return err
		}
		z, err := libc.CString(f.name)
		if err != nil {
			return err
		}
		rc := lib.Xsqlite3_create_function_v2(h.tls, h.db, z, -1, flags, ref.userData, cFunc(jsonPathsFunc), 0, 0, 0)
		libc.Xfree(h.tls, z)
		if rc != lib.SQLITE_OK {
			return h.lastError(rc)
		}
	}
	return nil
}

// calledBuiltin returns the name a replacement was called by (from the
// definition SQLite calls it through) and SQLite's own implementation of
// it; ok is false, with the error set, when there is none.
func calledBuiltin(tls *libc.TLS, ctx uintptr) (name string, ref builtinRef, ok bool) {
	var cx lib.Tsqlite3_context
	var fd lib.TFuncDef
	name = libc.GoString(ptrAt(ptrAt(ctx+unsafe.Offsetof(cx.FpFunc)) + unsafe.Offsetof(fd.FzName)))
	v, ok := builtins.Load(name)
	if !ok {
		resultError(tls, ctx, name+": SQLite's implementation is missing")
		return name, builtinRef{}, false
	}
	return name, v.(builtinRef), true
}

// callBuiltin runs SQLite's own implementation on the call's context and
// arguments.
func callBuiltin(tls *libc.TLS, ref builtinRef, ctx uintptr, argc int32, argv uintptr) {
	cCall[func(*libc.TLS, uintptr, int32, uintptr)](ref.fn)(tls, ctx, argc, argv)
}

// jsonPathsFunc is every path-list function, bounded.
func jsonPathsFunc(tls *libc.TLS, ctx uintptr, argc int32, argv uintptr) {
	name, ref, ok := calledBuiltin(tls, ctx)
	if !ok {
		return
	}
	paths := int64(argc - 1)
	for _, f := range jsonPathFuncs {
		if f.name == name && f.pairs {
			paths = int64(argc-1) / 2
		}
	}
	if paths > 1 {
		doc := args(argv, argc)[0]
		if t := lib.Xsqlite3_value_type(tls, doc); t == lib.SQLITE_TEXT || t == lib.SQLITE_BLOB {
			if size := int64(lib.Xsqlite3_value_bytes(tls, doc)); paths*size > jsonPathWorkBound {
				resultError(tls, ctx, fmt.Sprintf("%s of %d paths in a %d-byte document is refused: its cost grows with the "+
					"product of the two, which may be at most %d; give fewer paths per call (one %s per path, in "+
					"separate columns or calls)", name, paths, size, int64(jsonPathWorkBound), name))
				return
			}
		}
	}
	callBuiltin(tls, ref, ctx, argc, argv)
}
