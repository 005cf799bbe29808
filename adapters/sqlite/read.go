package sqlite

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// The read tier's execution, shared by the services that run agent SQL
// that only reads: StatementRunner.Read (read_query) and
// CandidateSource.Candidates (search_text's candidate rows).

// read is Read with the text cap given: 0 reads every value whole.
func (s *Store) read(ctx context.Context, sql string, textCap int, columns func([]string), row ports.RowFunc) error {
	return s.withAgent(ctx, domain.TierRead, func(c *call) error {
		sql := s.ro.TruthfulSQL(sql)
		st, entry, err := s.readStatement(c, sql)
		if err != nil {
			return err
		}
		defer func() {
			if entry == nil {
				st.Finalize()
			} else if !st.Empty() {
				st.Reset() // kept for the next call
			}
		}()
		st.TextCap = textCap
		if st.Empty() {
			columns(nil)
			return nil
		}
		more, err := st.Step()
		if err == nil && entry != nil && st.Reprepares() != entry.reprep {
			// SQLite recompiled the kept statement (its schema changed):
			// nothing has left yet; inspect the new program, run it anew.
			more, err = s.reinspect(c, &st, entry)
		}
		if err != nil {
			if entry != nil {
				c.cache.drop(entry)
				st = engine.Stmt{}
			}
			return err
		}
		columns(st.Columns())
		vals := make([]any, st.NCol())
		for more {
			st.Row(vals)
			if !row(vals) {
				break
			}
			if more, err = st.Step(); err != nil {
				return err
			}
		}
		// Read-only mode: rows read while another program changed the
		// file under immutable=1 may mix pages; none is sent.
		return s.ro.CheckAfterRead()
	})
}

// readStatement compiles and inspects sql for the read tier, or takes it
// from the connection's cache (stmtcache.go). entry is nil when the caller
// owns the statement and must finalize it.
func (s *Store) readStatement(c *call, sql string) (engine.Stmt, *cachedStmt, error) {
	if e := c.cache.get(sql); e != nil {
		c.reset()
		c.running = true
		st := e.st.Fresh()
		return st, e, nil
	}
	// Only SQL seen before on this connection is kept: a statement held
	// for later takes memory every compile could use, so one-off SQL
	// (most agent SQL: the tools bind no parameters) is not kept.
	keep := c.cache.seenBefore(sql)
	var flags uint32
	if keep {
		flags = engine.PreparePersistent
	}
	st, err := c.compileOneFlags(sql, flags)
	if err != nil {
		return engine.Stmt{}, nil, err
	}
	if st.Empty() {
		return st, nil, nil
	}
	if err := s.inspect(c, st); err != nil {
		st.Finalize()
		return engine.Stmt{}, nil, err
	}
	if !keep {
		return st, nil, nil
	}
	return st, c.cache.put(c, sql, st), nil
}

// reinspect inspects a kept statement SQLite recompiled, and steps it from
// its start when the new program still only reads.
func (s *Store) reinspect(c *call, st *engine.Stmt, e *cachedStmt) (bool, error) {
	st.Reset()
	if err := s.inspect(c, *st); err != nil {
		return false, err
	}
	e.reprep, e.inspects = st.Reprepares(), e.inspects+1
	*st = st.Fresh()
	return st.Step()
}
