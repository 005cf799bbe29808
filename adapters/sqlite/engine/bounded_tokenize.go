package engine

import (
	"sync"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// FTS5 tokenizes a text in one go: a row it indexes or deletes, the rows
// 'rebuild' reads back from its content, a phrase of a query, the text
// highlight() and snippet() mark up. Tokenizing never looks at the
// interrupt, and what it feeds grows faster than the text: FTS5 keeps the
// terms of the rows a transaction writes in memory and writes them out at
// COMMIT, in one step the interrupt does not end. A row of 250,000
// distinct terms took 0.5 s to insert and 0.8 s to commit, one of 500,000
// 1.6 s and 4.3 s. Agent connections get each built-in tokenizer wrapped
// under its own name: the wrapper hands FTS5's tokenizer a callback that
// passes every token on, ends the tokenizing with SQLITE_INTERRUPT once
// the statement was interrupted (every tokenCheckEvery tokens), and
// refuses a row that would index more than FTSRowTerms (fts5UpdateBounded
// words the refusal). Tokenizers are looked up by name when a table
// connects, so every table the agent's statements connect uses the
// wrappers.

// FTSRowTerms caps the distinct terms FTS5 indexes for one row (all its
// columns; an UPDATE counts the old text and the new): 62,500 took 50 ms
// to index and 0.1 s to commit. A term repeated costs little (a row of one
// term 4 million times took 0.25 s) and counts once. A long book has fewer
// than 30,000 distinct words.
const FTSRowTerms = 65_536

// tokenCheckEvery is how many tokens pass between two looks at the
// interrupt: about a millisecond of tokenizing.
const tokenCheckEvery = 256

// boundedTokenizers are FTS5's built-in tokenizers. porter wraps another
// tokenizer, which it finds by name, so it is wrapped last.
var boundedTokenizers = []string{"unicode61", "ascii", "trigram", "porter"}

// tokenizerModule is the user data of a wrapped tokenizer: FTS5's own
// tokenizer, the connection it runs on and the connection's row count. It
// lives in C memory, freed by FTS5 with the connection.
type tokenizerModule struct {
	userData uintptr // FTS5's tokenizer's user data
	create   uintptr // its xCreate, xDelete and xTokenize
	delete   uintptr
	tokenize uintptr
	db       uintptr
	rows     uintptr // the connection's *rowTokens
}

// tokenizerInstance is one wrapped tokenizer instance (Fts5Tokenizer*).
type tokenizerInstance struct {
	inner    uintptr // FTS5's tokenizer instance
	delete   uintptr
	tokenize uintptr
	db       uintptr
	rows     uintptr
}

// tokenizeCtx is the context of one xTokenize call.
type tokenizeCtx struct {
	ctx   uintptr // FTS5's pCtx and its xToken
	token uintptr
	db    uintptr
	rows  uintptr // the connection's rowTokens when this call counts terms
	set   uintptr // the key of the terms counted in termSets
	count uintptr // tokens of this call
}

// rowTokens is one connection's state of the row FTS5 is writing (C
// memory, the connection's client data named rowTokensMark). While no row
// is written (a 'rebuild' writes many in one call) each text counts alone.
type rowTokens struct {
	inRow   uintptr // 1 while fts5UpdateBounded writes one row
	refused uintptr // 1 once the terms passed FTSRowTerms
	depth   uintptr // wrapped tokenizers running (porter runs another)
}

// termSets holds the distinct terms counted so far, by the key of the row
// (its rowTokens) or of the one text (its tokenizeCtx) that counts them.
var termSets sync.Map // uintptr -> map[string]struct{}

// rowTokensMark names the connection's rowTokens.
const rowTokensMark = "mcp-sqlite-memory.fts5-row-tokens"

// rowTokensMarkC is rowTokensMark as a C string, made once.
var rowTokensMarkC = sync.OnceValues(func() (uintptr, error) { return libc.CString(rowTokensMark) })

// rowTokensOf returns the rowTokens of connection db, 0 when it has none.
func rowTokensOf(tls *libc.TLS, db uintptr) uintptr {
	mark, err := rowTokensMarkC()
	if err != nil {
		return 0
	}
	return lib.Xsqlite3_get_clientdata(tls, db, mark)
}

// boundedTokenizer is the fts5_tokenizer_v2 every wrapper registers with.
var boundedTokenizer = lib.Tfts5_tokenizer_v2{
	FiVersion:  2,
	FxCreate:   cFunc(tokenizerCreate),
	FxDelete:   cFunc(tokenizerDelete),
	FxTokenize: cFunc(tokenizerTokenize),
}

// registerTokenizerBounds wraps the connection's built-in tokenizers, once
// (RegisterBounded's mark).
func (h Handle) registerTokenizerBounds(api uintptr) error {
	var a lib.Tfts5_api
	if int32At(api+unsafe.Offsetof(a.FiVersion)) < 3 {
		return nil // no v2 tokenizers: an FTS5 older than the one this was written for
	}
	find := cCall[func(*libc.TLS, uintptr, uintptr, uintptr, uintptr) int32](ptrAt(api + unsafe.Offsetof(a.FxFindTokenizer_v2)))
	create := cCall[func(*libc.TLS, uintptr, uintptr, uintptr, uintptr, uintptr) int32](ptrAt(api + unsafe.Offsetof(a.FxCreateTokenizer_v2)))
	rows, err := h.newRowTokens()
	if err != nil {
		return err
	}
	var tok lib.Tfts5_tokenizer_v2
	var global lib.TFts5Global
	var mod lib.TFts5TokenizerModule
	tmpl := boundedTokenizer
	tsize := int(unsafe.Sizeof(tok))
	for _, name := range boundedTokenizers {
		z, err := libc.CString(name)
		if err != nil {
			return err
		}
		out := h.tls.Alloc(2 * ptrSize)
		rc := find(h.tls, api, z, out, out+uintptr(ptrSize))
		userData, inner := ptrAt(out), ptrAt(out+uintptr(ptrSize))
		h.tls.Free(2 * ptrSize)
		if rc != lib.SQLITE_OK || inner == 0 {
			libc.Xfree(h.tls, z)
			continue
		}
		if ptrAt(inner+unsafe.Offsetof(tok.FxTokenize)) == tmpl.FxTokenize {
			libc.Xfree(h.tls, z)
			continue // wrapped already
		}
		var m tokenizerModule
		p := lib.Xsqlite3_malloc64(h.tls, uint64(unsafe.Sizeof(m)))
		if p == 0 {
			libc.Xfree(h.tls, z)
			return h.lastError(lib.SQLITE_NOMEM)
		}
		putStruct(p, tokenizerModule{
			userData: userData,
			create:   ptrAt(inner + unsafe.Offsetof(tok.FxCreate)),
			delete:   ptrAt(inner + unsafe.Offsetof(tok.FxDelete)),
			tokenize: ptrAt(inner + unsafe.Offsetof(tok.FxTokenize)),
			db:       h.db,
			rows:     rows,
		})
		// FTS5 copies the fts5_tokenizer_v2 it is given.
		t := h.tls.Alloc(tsize)
		putStruct(t, tmpl)
		rc = create(h.tls, api, z, p, t, cFunc(lib.Xsqlite3_free))
		h.tls.Free(tsize)
		libc.Xfree(h.tls, z)
		if rc != lib.SQLITE_OK {
			lib.Xsqlite3_free(h.tls, p)
			return h.lastError(rc)
		}
		// A table without a tokenize option uses FTS5's default, the
		// first tokenizer registered (unicode61), which a new
		// registration does not replace: the wrapper, at the head of the
		// list now, becomes the default in its place.
		dflt := api + unsafe.Offsetof(global.FpDfltTok)
		head := ptrAt(api + unsafe.Offsetof(global.FpTok))
		if d := ptrAt(dflt); d != 0 && d != head && ptrAt(d+unsafe.Offsetof(mod.Fx2)+unsafe.Offsetof(tok.FxTokenize)) != tmpl.FxTokenize &&
			libc.GoString(ptrAt(d+unsafe.Offsetof(mod.FzName))) == name && libc.GoString(ptrAt(head+unsafe.Offsetof(mod.FzName))) == name {
			writePtr(dflt, head)
		}
	}
	return nil
}

// tokenizerCreate is xCreate: FTS5's tokenizer's instance, wrapped.
func tokenizerCreate(tls *libc.TLS, userData, azArg uintptr, nArg int32, ppOut uintptr) int32 {
	m := getStruct[tokenizerModule](userData)
	out := tls.Alloc(ptrSize)
	defer tls.Free(ptrSize)
	writePtr(out, 0)
	rc := cCall[func(*libc.TLS, uintptr, uintptr, int32, uintptr) int32](m.create)(tls, m.userData, azArg, nArg, out)
	inner := ptrAt(out)
	if rc != lib.SQLITE_OK {
		writePtr(ppOut, 0)
		return rc
	}
	var in tokenizerInstance
	p := lib.Xsqlite3_malloc64(tls, uint64(unsafe.Sizeof(in)))
	if p == 0 {
		cCall[func(*libc.TLS, uintptr)](m.delete)(tls, inner)
		writePtr(ppOut, 0)
		return lib.SQLITE_NOMEM
	}
	putStruct(p, tokenizerInstance{inner: inner, delete: m.delete, tokenize: m.tokenize, db: m.db, rows: m.rows})
	writePtr(ppOut, p)
	return lib.SQLITE_OK
}

// tokenizerDelete is xDelete.
func tokenizerDelete(tls *libc.TLS, p uintptr) {
	if p == 0 {
		return
	}
	in := getStruct[tokenizerInstance](p)
	cCall[func(*libc.TLS, uintptr)](in.delete)(tls, in.inner)
	lib.Xsqlite3_free(tls, p)
}

// tokenizerTokenize is xTokenize: FTS5's, with tokenCounted between it and
// FTS5's callback.
func tokenizerTokenize(tls *libc.TLS, p, pCtx uintptr, flags int32, pText uintptr, nText int32, pLocale uintptr, nLocale int32, xToken uintptr) int32 {
	in := getStruct[tokenizerInstance](p)
	var c tokenizeCtx
	size := int(unsafe.Sizeof(c))
	ctx := tls.Alloc(size)
	defer tls.Free(size)
	c = tokenizeCtx{ctx: pCtx, token: xToken, db: in.db}
	if flags&lib.FTS5_TOKENIZE_DOCUMENT != 0 && in.rows != 0 {
		var r rowTokens
		depth := in.rows + unsafe.Offsetof(r.depth)
		d := ptrAt(depth)
		writePtr(depth, d+1)
		defer writePtr(depth, d)
		if d == 0 { // the outermost tokenizer counts
			c.rows, c.set = in.rows, in.rows
			if ptrAt(in.rows+unsafe.Offsetof(r.inRow)) == 0 {
				c.set = ctx
				termSets.Store(ctx, map[string]struct{}{})
				defer termSets.Delete(ctx)
			}
		}
	}
	putStruct(ctx, c)
	return cCall[func(*libc.TLS, uintptr, uintptr, int32, uintptr, int32, uintptr, int32, uintptr) int32](in.tokenize)(
		tls, in.inner, ctx, flags, pText, nText, pLocale, nLocale, cFunc(tokenCounted))
}

// tokenCounted passes one token on to FTS5. It ends the tokenizing once the
// statement was interrupted, and, for a document, once its row passed
// FTSRowTerms.
func tokenCounted(tls *libc.TLS, p uintptr, tflags int32, pToken uintptr, nToken, iStart, iEnd int32) int32 {
	c := getStruct[tokenizeCtx](p)
	c.count++
	writePtr(p+unsafe.Offsetof(c.count), c.count)
	if c.set != 0 {
		if v, ok := termSets.Load(c.set); ok {
			set := v.(map[string]struct{})
			term := cBytes(pToken, int(nToken))
			if _, seen := set[string(term)]; !seen {
				set[string(term)] = struct{}{}
				if len(set) > FTSRowTerms {
					var r rowTokens
					writePtr(c.rows+unsafe.Offsetof(r.refused), 1)
					return lib.SQLITE_TOOBIG
				}
			}
		}
	}
	if c.count%tokenCheckEvery == 0 && lib.Xsqlite3_is_interrupted(tls, c.db) != 0 {
		return lib.SQLITE_INTERRUPT
	}
	return cCall[func(*libc.TLS, uintptr, int32, uintptr, int32, int32, int32) int32](c.token)(
		tls, c.ctx, tflags, pToken, nToken, iStart, iEnd)
}

// newRowTokens makes the connection's rowTokens, freed with it.
func (h Handle) newRowTokens() (uintptr, error) {
	if p := rowTokensOf(h.tls, h.db); p != 0 {
		return p, nil
	}
	mark, err := rowTokensMarkC()
	if err != nil {
		return 0, err
	}
	var r rowTokens
	p := lib.Xsqlite3_malloc64(h.tls, uint64(unsafe.Sizeof(r)))
	if p == 0 {
		return 0, h.lastError(lib.SQLITE_NOMEM)
	}
	putStruct(p, r)
	if rc := lib.Xsqlite3_set_clientdata(h.tls, h.db, mark, p, cFunc(lib.Xsqlite3_free)); rc != lib.SQLITE_OK {
		lib.Xsqlite3_free(h.tls, p)
		return 0, h.lastError(rc)
	}
	return p, nil
}

// putStruct copies v, a struct of pointer-sized words, to C memory at p.
func putStruct[T any](p uintptr, v T) {
	size := int(unsafe.Sizeof(v))
	copy(libc.GoBytes(p, size), unsafe.Slice((*byte)(unsafe.Pointer(&v)), size))
}

// getStruct reads a struct of pointer-sized words from C memory at p.
func getStruct[T any](p uintptr) T {
	var v T
	size := int(unsafe.Sizeof(v))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), size), libc.GoBytes(p, size))
	return v
}
