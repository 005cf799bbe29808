package fake

// Store bundles the fakes of the database's ports into one value that is
// also the audit sink, like the SQLite store: the core then seals a
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
