package sqlite

import (
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The UPDATE guard counts every row a write_query statement changed or
// overwrote, in every kind of table, triggers included:
//
//   - Real tables (rowid and WITHOUT ROWID, at any trigger depth, REPLACE's
//     overwritten rows and upsert's updates included): SQLite's pre-update
//     hook reports each one (call.changed).
//   - Virtual tables: the hook never sees them. When only the statement
//     itself writes one, sqlite3_changes64 is exactly the number of rows it
//     handed the module. When a trigger writes one, SQLite counts that only
//     in sqlite3_total_changes64, mixed with the rows of the statement, of
//     its other triggers and of the module's own bookkeeping statements on
//     its shadow tables. The hook sees every inserted or updated real row
//     among those (call.written), and each is counted once there, so what
//     is left is an upper bound of the virtual-table rows: deletes in the
//     modules' bookkeeping are left in it. The guard then errs on the side
//     of refusing, and says so.
//   - Rows a virtual table gained are inserts, not overwrites: the tables
//     inserted into are counted before and after.
//
// If the numbers contradict each other the statement is refused: a change
// that cannot be counted is not allowed through.

// guardState is what the guard measured before the statement ran.
type guardState struct {
	on     bool
	total0 int64 // sqlite3_total_changes64
	rows0  int64 // rows of the virtual tables the statement inserts into
}

// noteVirtual records, while the statement compiles, whether it or one of
// its triggers writes a virtual table.
func (c *call) noteVirtual(act domain.Action, table, trigger string) {
	if act != domain.ActionInsert && act != domain.ActionUpdate && act != domain.ActionDelete {
		return
	}
	if !c.virtual[strings.ToLower(table)] {
		return
	}
	if trigger == "" {
		c.vtabTop = true
	} else {
		c.vtabTrigger = true
	}
	if act == domain.ActionInsert {
		for _, t := range c.inserted {
			if strings.EqualFold(t, table) {
				return
			}
		}
		c.inserted = append(c.inserted, table)
	}
}

// countWrite is the pre-update hook's share of the count: every inserted or
// updated row of any real table, and, in the write tier, a module emptying
// one of its shadow tables.
func (c *call) countWrite(op domain.Action, table string) {
	switch op {
	case domain.ActionInsert, domain.ActionUpdate:
		c.written++
	case domain.ActionDelete:
		if c.wiped == "" && c.policy.Tier == domain.TierWrite && c.shadow[table] && c.moduleEmpties() {
			c.wiped = table
			// Stop at once: the refusal rolls everything back anyway.
			c.h.Interrupt()
		}
	}
}

// moduleEmpties reports whether a statement other than the agent's, run by
// a virtual-table module while the agent's statement steps, deletes a whole
// table: a DELETE with no WHERE. That is how FTS5's 'delete-all' and
// 'rebuild' commands begin (they empty the index, and on a contentless
// table the data with it); row-level changes ('delete', UPDATE) and layout
// commands ('optimize', 'merge') delete by key. The text read is the
// module's own SQL, never the agent's.
func (c *call) moduleEmpties() bool {
	return c.h.AnyOtherBusy(c.stmt, wholeTableDelete)
}

// wholeTableDelete reports whether a module's statement is DELETE FROM one
// table with no WHERE clause. It runs for every shadow-table delete, so it
// allocates nothing.
func wholeTableDelete(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n")
	if len(s) < 6 || !strings.EqualFold(s[:6], "DELETE") {
		return false
	}
	rest := strings.TrimLeft(s[6:], " \t\r\n")
	if len(rest) < 4 || !strings.EqualFold(rest[:4], "FROM") {
		return false
	}
	for i := 0; i+5 <= len(rest); i++ {
		if rest[i]|0x20 == 'w' && strings.EqualFold(rest[i:i+5], "WHERE") {
			return false
		}
	}
	return true
}

// wipeError is the write tier's refusal of an FTS5 command that empties or
// rebuilds an index.
func (c *call) wipeError() error {
	table := c.wiped
	for v := range c.virtual {
		if strings.HasPrefix(c.wiped, v+"_") && len(v) < len(table) {
			table = v
		}
	}
	return domain.Errorf(domain.ErrPolicy, "%s", domain.IndexWipeMessage(table))
}

// startGuard measures what the guard compares against, after the statement
// compiled and before it runs.
func (c *call) startGuard(on bool) (guardState, error) {
	g := guardState{on: on}
	if !on {
		return g, nil
	}
	if len(c.inserted) > 0 {
		n, err := c.countRows(c.inserted)
		if err != nil {
			return g, err
		}
		g.rows0 = n
	}
	g.total0 = c.h.TotalChanges()
	return g, nil
}

// checkGuard counts the rows the statement changed or overwrote and
// refuses it when they are more than limit.
func (c *call) checkGuard(g guardState, limit int) error {
	if !g.on {
		return nil
	}
	total := c.h.TotalChanges() - g.total0
	n := c.changed
	var vtab int64
	bound := false
	switch {
	case c.vtabTrigger:
		vtab, bound = total-c.written, true
	case c.vtabTop:
		vtab = c.h.Changes()
	}
	if vtab < 0 {
		return domain.Errorf(domain.ErrGuard, domain.ToolWriteQuery+" could not count the rows this statement changed (SQLite counted %d, the server %d); rolled back. Use "+domain.ToolDestructiveQuery+", which snapshots the database first", total, c.written)
	}
	if len(c.inserted) > 0 {
		after, err := c.countRows(c.inserted)
		if err != nil {
			return err
		}
		// Rows a virtual table gained are new rows, not overwritten ones.
		vtab -= after - g.rows0
	}
	if vtab > 0 {
		n += vtab
	}
	if n > int64(limit) {
		if bound {
			return domain.GuardBoundError(n, limit)
		}
		return domain.GuardError(n, limit)
	}
	return nil
}
