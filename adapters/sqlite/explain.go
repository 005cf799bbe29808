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
		return domain.Errorf(domain.ErrPolicy, "%s", c.policy.CompiledWrite(op))
	}
	return nil
}
