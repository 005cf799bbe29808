package sqlite

import (
	"context"

	lib "modernc.org/sqlite/lib"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// The read tier's execution, shared by the services that run agent SQL
// that only reads: StatementRunner.Read (read_query) and
// CandidateSource.Candidates (search_text's candidate rows).

// read is Read with the text cap given: 0 reads every value whole.
func (s *Store) read(ctx context.Context, sql string, textCap int, columns func([]string), row ports.RowFunc) error {
	return s.withAgent(ctx, domain.TierRead, func(c *call) error {
		sql := s.truthfulSQL(sql)
		st, entry, err := s.readStatement(c, sql)
		if err != nil {
			return err
		}
		defer func() {
			if entry == nil {
				st.finalize()
			} else if st.p != 0 {
				lib.Xsqlite3_reset(st.h.tls, st.p) // kept for the next call
			}
		}()
		st.textCap = textCap
		if st.p == 0 {
			columns(nil)
			return nil
		}
		more, err := st.step()
		if err == nil && entry != nil && reprepares(st.h, st.p) != entry.reprep {
			// SQLite recompiled the kept statement (its schema changed):
			// nothing has left yet; inspect the new program, run it anew.
			more, err = s.reinspect(c, &st, entry)
		}
		if err != nil {
			if entry != nil {
				c.cache.drop(st.h, entry)
				st.p = 0
			}
			return err
		}
		columns(st.columns())
		vals := make([]any, st.ncol)
		for more {
			st.row(vals)
			if !row(vals) {
				break
			}
			if more, err = st.step(); err != nil {
				return err
			}
		}
		// Read-only mode: rows read while another program changed the
		// file under immutable=1 may mix pages; none is sent.
		return s.checkAfterRead()
	})
}

// readStatement compiles and inspects sql for the read tier, or takes it
// from the connection's cache (stmtcache.go). entry is nil when the caller
// owns the statement and must finalize it.
func (s *Store) readStatement(c *call, sql string) (prepared, *cachedStmt, error) {
	if e := c.cache.get(sql); e != nil {
		c.reset()
		c.running = true
		st := prepared{h: c.h, p: e.p, ncol: int(lib.Xsqlite3_column_count(c.h.tls, e.p))}
		return st, e, nil
	}
	// Only SQL seen before on this connection is kept: a statement held
	// for later takes memory every compile could use, so one-off SQL
	// (most agent SQL: the tools bind no parameters) is not kept.
	keep := c.cache.seenBefore(sql)
	var flags uint32
	if keep {
		flags = lib.SQLITE_PREPARE_PERSISTENT
	}
	st, err := c.compileOneFlags(sql, flags)
	if err != nil {
		return prepared{}, nil, err
	}
	if st.p == 0 {
		return st, nil, nil
	}
	if err := s.inspect(c, st); err != nil {
		st.finalize()
		return prepared{}, nil, err
	}
	if !keep {
		return st, nil, nil
	}
	return st, c.cache.put(c.h, c, sql, st), nil
}

// reinspect inspects a kept statement SQLite recompiled, and steps it from
// its start when the new program still only reads.
func (s *Store) reinspect(c *call, st *prepared, e *cachedStmt) (bool, error) {
	lib.Xsqlite3_reset(st.h.tls, st.p)
	if err := s.inspect(c, *st); err != nil {
		return false, err
	}
	e.reprep, e.inspects = reprepares(st.h, st.p), e.inspects+1
	st.ncol = int(lib.Xsqlite3_column_count(st.h.tls, st.p))
	return st.step()
}
