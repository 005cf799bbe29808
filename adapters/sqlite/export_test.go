package sqlite

// WholeTableDelete exposes wholeTableDelete to the tests.
var WholeTableDelete = wholeTableDelete

// StmtCacheStats reports, for tests, how many reader connections keep
// statements, how many statements they keep in all, the largest byte count
// of one connection's cache, how many times the program of sql was
// inspected (0 when it is not kept), and how many reader connections the
// pool holds open.
func (s *Store) StmtCacheStats(sql string) (conns, stmts, maxBytes, inspects, open int) {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for _, cs := range s.stmts.states {
		conns++
		stmts += cs.lru.Len()
		maxBytes = max(maxBytes, cs.bytes)
		if e := cs.byKey[sql]; e != nil {
			inspects = max(inspects, e.inspects)
		}
	}
	return conns, stmts, maxBytes, inspects, s.readers.Stats().OpenConnections
}

// StmtCacheLimits are the cache's bounds per connection.
const StmtCacheEntries, StmtCacheBytes = stmtCacheEntries, stmtCacheBytes
