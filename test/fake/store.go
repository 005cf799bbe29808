package fake

import "github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"

// Store bundles the fakes of the database's ports into one value that is
// also the audit sink and, like the SQLite adapter's services of one
// database, seals the entries of that sink (Seals): the core then seals a
// write's audit entry into the write (see ports.AuditFunc), and every
// entry, sealed or recorded, lands in the one AuditLog.
type Store struct {
	*Statements
	*Schema
	*CandidateRows
	*Memory
	*AuditLog
}

// NewStore returns an empty database: no tables, no rows, no events.
func NewStore() *Store {
	log := &AuditLog{}
	return &Store{
		Statements:    &Statements{Log: log},
		Schema:        &Schema{Log: log},
		CandidateRows: &CandidateRows{},
		Memory:        &Memory{Log: log},
		AuditLog:      log,
	}
}

var _ ports.AuditSealer = (*Store)(nil)

// Seals reports whether sink is the store itself: a write through the
// store then stores its audit entry in the write, as the SQLite adapter
// does when the audit log is in the database written.
func (s *Store) Seals(sink ports.AuditSink) bool { return sink == ports.AuditSink(s) }
