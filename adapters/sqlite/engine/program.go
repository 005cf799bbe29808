package engine

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// The program check reads a compiled statement's instructions.

// writeOpcode reports whether a VDBE instruction changes the database. Work
// tables (OpenEphemeral, sorters, autoindexes) are private to the statement:
// recursive CTEs and DISTINCT insert into them, so Insert and Delete alone
// prove nothing; writing to a real table needs an OpenWrite cursor or a
// write transaction, which is what this looks for.
func writeOpcode(op string, p2, p3 int64) bool {
	switch op {
	case "OpenWrite", "VUpdate", "VCreate", "VDestroy", "Destroy", "Clear",
		"CreateBtree", "DropTable", "DropIndex", "DropTrigger", "ParseSchema",
		"SetCookie", "Vacuum", "IncrVacuum", "AutoCommit", "Savepoint",
		"Checkpoint", "LoadAnalysis",
		"sqlite_attach", "sqlite_detach", "load_extension": // calls that reach outside the file
		return true
	case "Transaction":
		return p2 != 0 // 0 read, 1 write, 2 exclusive
	case "JournalMode":
		return p3 != -1 // -1 only queries the mode
	}
	return false
}

// Listing a program with EXPLAIN renders every column of every instruction
// (P4 as text, comments), about 40% of the instructions of a 1-row read at
// the store (callgrind). firstWriteDirect reads the instructions where
// SQLite keeps them instead, as findBuiltin does (bounded_builtin.go), and
// applies writeOpcode to the same opcode names, P2, P3 and function names
// the listing shows. It gives up, leaving the program to the listing, on
// anything it does not read the way the listing does: a sub-program (a
// trigger body, which the listing includes) or a function call whose P4 is
// neither a function context nor a definition.

// writeOpNames names the opcodes whose name alone makes writeOpcode true;
// Transaction, JournalMode and Function depend on their operands.
var writeOpNames = map[byte]string{
	lib.OP_OpenWrite: "OpenWrite", lib.OP_VUpdate: "VUpdate", lib.OP_VCreate: "VCreate", lib.OP_VDestroy: "VDestroy",
	lib.OP_Destroy: "Destroy", lib.OP_Clear: "Clear", lib.OP_CreateBtree: "CreateBtree", lib.OP_DropTable: "DropTable",
	lib.OP_DropIndex: "DropIndex", lib.OP_DropTrigger: "DropTrigger", lib.OP_ParseSchema: "ParseSchema",
	lib.OP_SetCookie: "SetCookie", lib.OP_Vacuum: "Vacuum", lib.OP_IncrVacuum: "IncrVacuum", lib.OP_AutoCommit: "AutoCommit",
	lib.OP_Savepoint: "Savepoint", lib.OP_Checkpoint: "Checkpoint", lib.OP_LoadAnalysis: "LoadAnalysis",
}

// firstWriteDirect returns the first writing instruction of st's program
// as the EXPLAIN listing would name it ("" for none), and ok false when
// the listing must decide.
func firstWriteDirect(st Stmt) (op string, ok bool) {
	var (
		vdbe lib.TVdbe
		o    lib.TVdbeOp
		cx   lib.Tsqlite3_context
		fd   lib.TFuncDef
	)
	aOp, nOp := ptrAt(st.p+unsafe.Offsetof(vdbe.FaOp)), int(int32At(st.p+unsafe.Offsetof(vdbe.FnOp)))
	if aOp == 0 || nOp <= 0 {
		return "", false
	}
	size := int(unsafe.Sizeof(o))
	ops := libc.GoBytes(aOp, nOp*size) // one copy of the whole program
	int32Of := func(b []byte) int32 { return int32(binary.NativeEndian.Uint32(b)) }
	for i := range nOp {
		b := ops[i*size : (i+1)*size]
		code := b[unsafe.Offsetof(o.Fopcode)]
		p4type := int8(b[unsafe.Offsetof(o.Fp4type)])
		p2, p3 := int64(int32Of(b[unsafe.Offsetof(o.Fp2):])), int64(int32Of(b[unsafe.Offsetof(o.Fp3):]))
		if p4type == lib.P4_SUBPROGRAM {
			return "", false
		}
		switch code {
		case lib.OP_Transaction:
			if writeOpcode("Transaction", p2, p3) {
				return "Transaction", true
			}
		case lib.OP_JournalMode:
			if writeOpcode("JournalMode", p2, p3) {
				return "JournalMode", true
			}
		case lib.OP_Function: // the listing names the function its P4 calls
			p4 := readPtr(b[unsafe.Offsetof(o.Fp4):])
			var def uintptr
			switch p4type {
			case lib.P4_FUNCCTX:
				def = ptrAt(p4 + unsafe.Offsetof(cx.FpFunc))
			case lib.P4_FUNCDEF:
				def = p4
			default:
				return "", false
			}
			if def == 0 {
				return "", false
			}
			name, _, _ := strings.Cut(libc.GoString(ptrAt(def+unsafe.Offsetof(fd.FzName))), "(")
			if writeOpcode(name, p2, p3) {
				return name, true
			}
		default:
			if name, w := writeOpNames[code]; w {
				return name, true
			}
		}
	}
	return "", true
}

// FirstWrite returns the first instruction of s's program that changes
// the database, as the EXPLAIN listing names it, or "".
// The program is read in SQLite's memory (firstWriteDirect) when that
// reading decides as the EXPLAIN listing would; otherwise it is listed.
func (s Stmt) FirstWrite() (string, error) {
	if lib.Xsqlite3_stmt_isexplain(s.h.tls, s.p) != 0 {
		return "", nil // the agent's own EXPLAIN only lists a program; it runs nothing
	}
	if op, ok := firstWriteDirect(s); ok {
		return op, nil
	}
	return firstWriteListed(s)
}

// firstWriteListed is FirstWrite through SQLite's EXPLAIN listing of the
// program, sub-programs (trigger bodies) included.
func firstWriteListed(st Stmt) (string, error) {
	tls, p := st.h.tls, st.p
	if rc := lib.Xsqlite3_stmt_explain(tls, p, 1); rc != lib.SQLITE_OK {
		return "", st.h.lastError(rc)
	}
	defer func() {
		lib.Xsqlite3_reset(tls, p)
		lib.Xsqlite3_stmt_explain(tls, p, 0)
	}()
	for {
		switch rc := lib.Xsqlite3_step(tls, p); rc {
		case lib.SQLITE_ROW:
			op := libc.GoString(lib.Xsqlite3_column_text(tls, p, 1))
			if op == "Function" { // P4 spells the function called: "name(nargs)"
				op, _, _ = strings.Cut(libc.GoString(lib.Xsqlite3_column_text(tls, p, 5)), "(")
			}
			p2 := int64(lib.Xsqlite3_column_int64(tls, p, 3))
			p3 := int64(lib.Xsqlite3_column_int64(tls, p, 4))
			if writeOpcode(op, p2, p3) {
				return op, nil
			}
		case lib.SQLITE_DONE:
			return "", nil
		default:
			return "", st.h.lastError(rc)
		}
	}
}
