package engine

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// A virtual table's xFilter is one step of the statement, like a call of a
// built-in: SQLite looks at the interrupt only before and after it. Of the
// modules compiled in, every one reads its data through SQLite (FTS5's
// index and R*Tree's nodes through blob handles, fts5vocab, json_each,
// json_tree, dbstat and the pragma functions row by row), and those reads
// stop at the interrupt. One piece of work does not read: FTS5 parses its
// full-text query in xFilter, in time quadratic in the terms joined by OR,
// AND or juxtaposition (80,000 took 10 s, 20,000 0.4 s), and tokenizes its
// phrases there (linear, but a phrase near the value cap takes seconds).
// The query is a value, which SQL can build, so no request cap helps.
//
// Agent connections therefore get FTS5 under its own name with xFilter
// wrapped: every text or blob argument FTS5 is handed (the right side of
// MATCH or = on the table or a column, the table-valued argument, rank's
// argument; LIKE and GLOB never reach it, since agent connections call the
// bounded replacements, which SQLite does not hand to a virtual table) is
// measured first, and one over FTSQueryBytes or FTSQueryTerms is refused
// with a message saying what to do. Every way SQL reaches an FTS5 query,
// views and triggers included, reaches xFilter on the connection running
// the statement, so none goes around the check. xUpdate is wrapped too, to
// bound the rows FTS5 indexes (bounded_tokenize.go). The measurements are
// in bounded_vtab_measure_test.go (TestMeasureVirtualTables).

// FTSQueryBytes caps the bytes of one FTS5 query: a phrase of 32,000 terms
// (or 64,000 characters on a trigram table) tokenizes in about 0.1 s.
const FTSQueryBytes = 64 << 10

// FTSQueryTerms caps the terms, strings and operators of one FTS5 query
// outside its quoted strings: 4,096 parse in about 25 ms, and the cost
// grows with their square.
const FTSQueryTerms = 4096

// boundedFTS5 is the process's one copy of FTS5's module with xFilter and
// xUpdate wrapped (C memory, never freed: connections point at it for
// their life), and the functions it wraps. FTS5's module is one static object,
// so every connection finds the same one.
var boundedFTS5 struct {
	once   sync.Once
	orig   uintptr // FTS5's sqlite3_module
	module uintptr // the copy
	filter uintptr // FTS5's xFilter and xUpdate
	update uintptr
	err    error
}

// moduleOf returns the connection's registration of virtual-table module
// name (SQLite's Module, from the connection's hash of modules), 0 when
// there is none.
func (h Handle) moduleOf(name string) uintptr {
	var db lib.Tsqlite3
	var hash lib.THash
	var elem lib.THashElem
	for e := ptrAt(h.db + unsafe.Offsetof(db.FaModule) + unsafe.Offsetof(hash.Ffirst)); e != 0; e = ptrAt(e + unsafe.Offsetof(elem.Fnext)) {
		if strings.EqualFold(libc.GoString(ptrAt(e+unsafe.Offsetof(elem.FpKey))), name) {
			return ptrAt(e + unsafe.Offsetof(elem.Fdata))
		}
	}
	return 0
}

// registerFTS5Module points the connection's FTS5 registration at the
// bounded copy of the module, once: tables it connects from then on (SQLite
// copies the module pointer into each table it connects) filter and update
// through the wrappers. The agent's statements are the first to connect a
// table on an agent connection, and a schema change reconnects them all.
func (h Handle) registerFTS5Module() error {
	mod := h.moduleOf("fts5")
	if mod == 0 {
		return nil
	}
	var m lib.TModule
	slot := mod + unsafe.Offsetof(m.FpModule)
	cur := ptrAt(slot)
	if cur == 0 {
		return nil
	}
	b := &boundedFTS5
	b.once.Do(func() { b.module, b.err = copyModule(h.tls, cur) })
	if b.err != nil {
		return b.err
	}
	switch cur {
	case b.module:
		return nil
	case b.orig:
		writePtr(slot, b.module)
		return nil
	}
	return fmt.Errorf("FTS5 is registered with a module other than SQLite's own; the query bound cannot be installed")
}

// copyModule makes the bounded copy of FTS5's module orig.
func copyModule(tls *libc.TLS, orig uintptr) (uintptr, error) {
	var mod lib.Tsqlite3_module
	size := int(unsafe.Sizeof(mod))
	p := lib.Xsqlite3_malloc64(tls, uint64(size))
	if p == 0 {
		return 0, fmt.Errorf("out of memory copying the FTS5 module")
	}
	copy(libc.GoBytes(p, size), libc.GoBytes(orig, size))
	filter, update := p+unsafe.Offsetof(mod.FxFilter), p+unsafe.Offsetof(mod.FxUpdate)
	boundedFTS5.orig, boundedFTS5.filter, boundedFTS5.update = orig, ptrAt(filter), ptrAt(update)
	if boundedFTS5.filter == 0 || boundedFTS5.update == 0 {
		return 0, fmt.Errorf("the FTS5 module has no xFilter or xUpdate")
	}
	writePtr(filter, cFunc(fts5FilterBounded))
	writePtr(update, cFunc(fts5UpdateBounded))
	return p, nil
}

// fts5FilterBounded is FTS5's xFilter behind the query bound.
func fts5FilterBounded(tls *libc.TLS, cursor uintptr, idxNum int32, idxStr uintptr, argc int32, argv uintptr) int32 {
	for _, v := range args(argv, argc) {
		var q []byte
		switch lib.Xsqlite3_value_type(tls, v) {
		case lib.SQLITE_TEXT:
			q = textOf(tls, v)
		case lib.SQLITE_BLOB: // a query with a locale (fts5_locale)
			q = cBytes(lib.Xsqlite3_value_blob(tls, v), int(lib.Xsqlite3_value_bytes(tls, v)))
		default:
			continue
		}
		if msg := ftsQueryRefusal(q); msg != "" {
			var cur lib.Tsqlite3_vtab_cursor
			return vtabError(tls, ptrAt(cursor+unsafe.Offsetof(cur.FpVtab)), msg)
		}
	}
	return cCall[func(*libc.TLS, uintptr, int32, uintptr, int32, uintptr) int32](boundedFTS5.filter)(
		tls, cursor, idxNum, idxStr, argc, argv)
}

// fts5UpdateBounded is FTS5's xUpdate, counting the tokens of the row it
// writes (bounded_tokenize.go) and keeping the terms FTS5 holds for COMMIT
// within its default: a table whose 'hashsize' is over it takes no writes
// but the command that lowers it.
func fts5UpdateBounded(tls *libc.TLS, vtab uintptr, argc int32, argv, rowid uintptr) int32 {
	var t lib.TFts5Table
	var cfg lib.TFts5Config
	config := ptrAt(vtab + unsafe.Offsetof(t.FpConfig))
	table := libc.GoString(ptrAt(config + unsafe.Offsetof(cfg.FzName)))
	a := args(argv, argc)
	command := ""
	if nCol := int(int32At(config + unsafe.Offsetof(cfg.FnCol))); argc > 1 && 3+nCol < int(argc) &&
		lib.Xsqlite3_value_type(tls, a[0]) == lib.SQLITE_NULL && lib.Xsqlite3_value_type(tls, a[2+nCol]) == lib.SQLITE_TEXT {
		command = strings.ToLower(string(textOf(tls, a[2+nCol])))
		if command == "hashsize" && lib.Xsqlite3_value_int64(tls, a[3+nCol]) > lib.FTS5_DEFAULT_HASHSIZE {
			return vtabError(tls, vtab, hashSizeRefusal(table))
		}
	}
	// FTS5 reloads its configuration inside xUpdate when another
	// connection changed it, so it is looked at before and after.
	largeHash := func() bool {
		return command != "hashsize" && int32At(config+unsafe.Offsetof(cfg.FnHashSize)) > lib.FTS5_DEFAULT_HASHSIZE
	}
	if largeHash() {
		return vtabError(tls, vtab, hashSizeRefusal(table))
	}
	rows := rowTokensOf(tls, ptrAt(config+unsafe.Offsetof(cfg.Fdb)))
	if rows != 0 {
		var r rowTokens
		if command == "" || command == "delete" {
			r.inRow = 1
			termSets.Store(rows, map[string]struct{}{})
			defer termSets.Delete(rows)
		}
		putStruct(rows, r)
	}
	rc := cCall[func(*libc.TLS, uintptr, int32, uintptr, uintptr) int32](boundedFTS5.update)(tls, vtab, argc, argv, rowid)
	if rows != 0 {
		r := getStruct[rowTokens](rows)
		putStruct(rows, rowTokens{})
		if r.refused != 0 {
			return vtabError(tls, vtab, fmt.Sprintf("FTS5 indexes at most %d distinct terms for one row of %s (its columns "+
				"together; an UPDATE counts the old text and the new), and this row has more: FTS5 indexes a row, and "+
				"writes its terms at COMMIT, in steps the query timeout cannot end. Split the text over several rows (by "+
				"section or paragraph), or index a part of it", FTSRowTerms, table))
		}
	}
	if rc == lib.SQLITE_OK && largeHash() {
		return vtabError(tls, vtab, hashSizeRefusal(table))
	}
	return rc
}

// hashSizeRefusal refuses a write to FTS5 table whose 'hashsize' would be
// over FTS5's default.
func hashSizeRefusal(table string) string {
	return fmt.Sprintf("an FTS5 'hashsize' over %[1]d bytes is refused: FTS5 writes the terms a transaction indexed at "+
		"COMMIT, in one step the query timeout cannot end. Set it to at most %[1]d: "+
		"INSERT INTO %[2]s(%[2]s, rank) VALUES ('hashsize', %[1]d)", lib.FTS5_DEFAULT_HASHSIZE, `"`+strings.ReplaceAll(table, `"`, `""`)+`"`)
}

// ftsQueryRefusal is the refusal of FTS5 query q, "" when it is within the
// bounds.
func ftsQueryRefusal(q []byte) string {
	const what = "full-text query (the right side of MATCH or = on an FTS5 table, or its table-valued argument)"
	const todo = "FTS5 parses a query in one step that the query timeout cannot end. Search for fewer terms at once " +
		"(several queries, their rows combined with UNION), or a long text with instr() on the column"
	if len(q) > FTSQueryBytes {
		return fmt.Sprintf("a %s of %d bytes is refused: at most %d bytes. %s", what, len(q), FTSQueryBytes, todo)
	}
	if n := ftsTerms(q, FTSQueryTerms); n > FTSQueryTerms {
		return fmt.Sprintf("a %s of more than %d terms and operators is refused. %s", what, FTSQueryTerms, todo)
	}
	return ""
}

// ftsTerms counts the tokens of FTS5 query syntax in q outside quoted
// strings, each string one token, up to limit+1: barewords (operators
// included) and each of ( ) { } : , + * - ^. It is an upper bound of the
// phrases and operators FTS5 builds nodes for, whatever its tokenizer.
func ftsTerms(q []byte, limit int) int {
	n := 0
	for i := 0; i < len(q) && n <= limit; {
		switch c := q[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.IndexByte("(){}:,+*-^", c) >= 0:
			n++
			i++
		case c == '"':
			n++
			for i++; i < len(q); i++ {
				if q[i] == '"' {
					if i+1 < len(q) && q[i+1] == '"' {
						i++
						continue
					}
					break
				}
			}
			i++
		default:
			n++
			for i < len(q) && !ftsSeparator(q[i]) {
				i++
			}
		}
	}
	return n
}

// ftsSeparator reports whether c ends a bareword.
func ftsSeparator(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || strings.IndexByte("(){}:,+*-^", c) >= 0
}

// vtabError sets a virtual table's error message, which SQLite reports as
// the statement's error, and returns SQLITE_ERROR.
func vtabError(tls *libc.TLS, vtab uintptr, msg string) int32 {
	var t lib.Tsqlite3_vtab
	slot := vtab + unsafe.Offsetof(t.FzErrMsg)
	if old := ptrAt(slot); old != 0 {
		lib.Xsqlite3_free(tls, old)
	}
	z := lib.Xsqlite3_malloc64(tls, uint64(len(msg)+1))
	if z == 0 {
		return lib.SQLITE_NOMEM
	}
	b := libc.GoBytes(z, len(msg)+1)
	copy(b, msg)
	b[len(msg)] = 0
	writePtr(slot, z)
	return lib.SQLITE_ERROR
}

// writePtr stores pointer v at address p.
func writePtr(p, v uintptr) {
	b := libc.GoBytes(p, ptrSize)
	if ptrSize == 8 {
		binary.NativeEndian.PutUint64(b, uint64(v))
		return
	}
	binary.NativeEndian.PutUint32(b, uint32(v))
}
