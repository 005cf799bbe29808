package sqlite

import (
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The read tier has two independent layers. The authorizer (package domain's
// policy) refuses actions while SQLite compiles; behind it, inspect reads the
// compiled program itself and refuses it if any instruction writes. A gap in
// one layer is caught by the other, and both are caught by query_only.

// inspect refuses a read-tier program that holds a write instruction
// (engine.Stmt.FirstWrite: the statement is compiled once).
func (s *Store) inspect(c *call, st engine.Stmt) error {
	if c.policy.Tier != domain.TierRead || s.opts.skipProgramCheck {
		return nil
	}
	op, err := st.FirstWrite()
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
