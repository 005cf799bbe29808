package engine

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// FTS5's auxiliary functions highlight() and snippet() run once per row, in
// one step, and two of them cost more than linear time in the row: snippet
// scores every match against every other (20,000 matches took 8 s) and
// highlight grows its output by copying it whole for each match (80,000
// matches in a 400 KB text took 2.4 s). They are not SQL functions but
// FTS5's own, which FTS5 looks up by name in a list the newest entry of
// wins. Agent connections get a wrapper of each at the head of that list:
// it measures the row (its matches, and the highlighted text's length) and
// either refuses it with a message saying what to do or calls FTS5's own
// function, whose answer is therefore unchanged.

// snippetMatchBound is the most matches snippet() may score in one row:
// 3,000 take about 0.15 s (the cost is quadratic).
const snippetMatchBound = 3000

// highlightWorkBound caps matches x text bytes for highlight(): about a
// quarter of a second of copying. A 1 MB text may have 5,000 matches, an
// 8 MB one 600.
const highlightWorkBound = 5_000_000_000

// fts5Wrapped are the wrapped auxiliaries and their wrappers.
var fts5Wrapped = []struct {
	name string
	fn   func(tls *libc.TLS, api, fts, ctx uintptr, nVal int32, apVal uintptr)
}{
	{"highlight", highlightBounded},
	{"snippet", snippetBounded},
}

// cCall turns a C function pointer into a callable Go func of type F (the
// inverse of cFunc).
func cCall[F any](fp uintptr) F { return *(*F)(unsafe.Pointer(&fp)) }

// ptrAt reads the pointer at address p.
func ptrAt(p uintptr) uintptr { return readPtr(libc.GoBytes(p, ptrSize)) }

// int32At reads the C int at address p.
func int32At(p uintptr) int32 { return int32(binary.NativeEndian.Uint32(libc.GoBytes(p, 4))) }

// fts5API returns the connection's fts5_api, 0 when FTS5 is missing.
func (h Handle) fts5API() uintptr {
	st, _, err := h.Prepare("SELECT fts5(?1)")
	if err != nil || st.Empty() {
		return 0
	}
	defer st.Finalize()
	bp := h.tls.Alloc(ptrSize + 16)
	defer h.tls.Free(ptrSize + 16)
	slot, typ := bp, bp+uintptr(ptrSize)
	copy(libc.GoBytes(slot, ptrSize+16), append(make([]byte, ptrSize), "fts5_api_ptr\x00"...))
	if lib.Xsqlite3_bind_pointer(h.tls, st.p, 1, slot, typ, 0) != lib.SQLITE_OK {
		return 0
	}
	if _, err := st.Step(); err != nil {
		return 0
	}
	return ptrAt(slot)
}

// registerFTS5Bounds puts the wrappers at the head of the connection's
// FTS5 auxiliary list, once: the wrapper keeps the function it wraps as
// its user data.
func (h Handle) registerFTS5Bounds() error {
	api := h.fts5API()
	if api == 0 {
		return nil
	}
	var global lib.TFts5Global
	var aux lib.TFts5Auxiliary
	for _, w := range fts5Wrapped {
		p := ptrAt(api + unsafe.Offsetof(global.FpAux))
		for p != 0 && !strings.EqualFold(libc.GoString(ptrAt(p+unsafe.Offsetof(aux.FzFunc))), w.name) {
			p = ptrAt(p + unsafe.Offsetof(aux.FpNext))
		}
		if p == 0 {
			continue
		}
		orig := ptrAt(p + unsafe.Offsetof(aux.FxFunc))
		if orig == cFunc(w.fn) {
			continue // this connection has it already
		}
		z, err := libc.CString(w.name)
		if err != nil {
			return err
		}
		create := cCall[func(*libc.TLS, uintptr, uintptr, uintptr, uintptr, uintptr) int32](
			ptrAt(api + unsafe.Offsetof(global.Fapi.FxCreateFunction)))
		rc := create(h.tls, api, z, orig, cFunc(w.fn), 0)
		libc.Xfree(h.tls, z)
		if rc != lib.SQLITE_OK {
			return h.lastError(rc)
		}
	}
	return h.registerTokenizerBounds(api)
}

// fts5Row is what a wrapper learns about the current row through the
// Fts5ExtensionApi.
type fts5Row struct {
	tls      *libc.TLS
	api, fts uintptr
}

func (r fts5Row) fn(off uintptr) uintptr { return ptrAt(r.api + off) }

// wrapped is the function the wrapper was registered for.
func (r fts5Row) wrapped() uintptr {
	var x lib.TFts5ExtensionApi
	return cCall[func(*libc.TLS, uintptr) uintptr](r.fn(unsafe.Offsetof(x.FxUserData)))(r.tls, r.fts)
}

// matches is the number of phrase matches in the row (xInstCount).
func (r fts5Row) matches() (int64, bool) {
	var x lib.TFts5ExtensionApi
	bp := r.tls.Alloc(8)
	defer r.tls.Free(8)
	rc := cCall[func(*libc.TLS, uintptr, uintptr) int32](r.fn(unsafe.Offsetof(x.FxInstCount)))(r.tls, r.fts, bp)
	return int64(int32At(bp)), rc == lib.SQLITE_OK
}

// textBytes is the length of column col's text (xColumnText).
func (r fts5Row) textBytes(col int32) (int64, bool) {
	var x lib.TFts5ExtensionApi
	bp := r.tls.Alloc(2*ptrSize + 8)
	defer r.tls.Free(2*ptrSize + 8)
	rc := cCall[func(*libc.TLS, uintptr, int32, uintptr, uintptr) int32](r.fn(unsafe.Offsetof(x.FxColumnText)))(
		r.tls, r.fts, col, bp, bp+uintptr(ptrSize))
	return int64(int32At(bp + uintptr(ptrSize))), rc == lib.SQLITE_OK
}

// call runs the wrapped FTS5 function on the same arguments.
func (r fts5Row) call(ctx uintptr, nVal int32, apVal uintptr) {
	cCall[func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr)](r.wrapped())(r.tls, r.api, r.fts, ctx, nVal, apVal)
}

// highlightBounded is highlight(T, col, open, close), bounded.
func highlightBounded(tls *libc.TLS, api, fts, ctx uintptr, nVal int32, apVal uintptr) {
	r := fts5Row{tls: tls, api: api, fts: fts}
	if nVal >= 1 {
		col := lib.Xsqlite3_value_int(tls, args(apVal, nVal)[0])
		n, ok1 := r.matches()
		size, ok2 := r.textBytes(col)
		if ok1 && ok2 && n*(size+1) > highlightWorkBound {
			resultError(tls, ctx, fmt.Sprintf("highlight() of a %d-byte text with %d matches is refused: its cost grows with "+
				"the product of the two, which may be at most %d; match fewer terms, or show part of the text "+
				"(snippet(), or substr() of the column)", size, n, int64(highlightWorkBound)))
			return
		}
	}
	r.call(ctx, nVal, apVal)
}

// snippetBounded is snippet(T, col, open, close, ellipsis, tokens), bounded.
func snippetBounded(tls *libc.TLS, api, fts, ctx uintptr, nVal int32, apVal uintptr) {
	r := fts5Row{tls: tls, api: api, fts: fts}
	if n, ok := r.matches(); ok && n > snippetMatchBound {
		resultError(tls, ctx, fmt.Sprintf("snippet() of a row with %d matches is refused: its cost grows with the square of "+
			"the matches, which may be at most %d; match rarer terms, or use highlight() or "+domain.ToolSearchText+" on that row",
			n, snippetMatchBound))
		return
	}
	r.call(ctx, nVal, apVal)
}
