package sqlite

import (
	"strings"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The read tier has two independent layers. The authorizer (package domain's
// policy) refuses actions while SQLite compiles; behind it, inspect reads the
// compiled program itself and refuses it if any instruction writes. A gap in
// one layer is caught by the other, and both are caught by query_only.

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

// inspect refuses a read-tier program that holds a write instruction. It
// switches the prepared statement into EXPLAIN mode and back, so the
// statement is compiled once.
func (s *Store) inspect(c *call, st prepared) error {
	if c.policy.Tier != domain.TierRead || s.opts.skipProgramCheck {
		return nil
	}
	op, err := firstWrite(st)
	if err != nil {
		return err
	}
	if op != "" {
		where := c.policy.Origin
		if where == "" {
			where = c.policy.Tier.Tool()
		}
		return domain.Errorf(domain.ErrPolicy, "%s refused: the compiled statement writes to the database (%s); use "+domain.ToolWriteQuery+", or "+domain.ToolDestructiveQuery+" for DELETE, DROP and ALTER", where, op)
	}
	return nil
}

// firstWrite returns the first writing opcode of st's program, or "".
// The program is read in SQLite's memory (firstWriteDirect) when that
// reading decides as the EXPLAIN listing would; otherwise it is listed.
func firstWrite(st prepared) (string, error) {
	if lib.Xsqlite3_stmt_isexplain(st.h.tls, st.p) != 0 {
		return "", nil // the agent's own EXPLAIN only lists a program; it runs nothing
	}
	if op, ok := firstWriteDirect(st); ok {
		return op, nil
	}
	return firstWriteListed(st)
}

// firstWriteListed is firstWrite through SQLite's EXPLAIN listing of the
// program, sub-programs (trigger bodies) included.
func firstWriteListed(st prepared) (string, error) {
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
