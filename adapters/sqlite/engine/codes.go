package engine

import lib "modernc.org/sqlite/lib"

// SQLite's primary result codes and extended codes the adapter tells apart
// ([Error.Code], and the driver's *sqlite.Error Code()&0xff).
const (
	CodeAuth      = lib.SQLITE_AUTH
	CodeError     = lib.SQLITE_ERROR
	CodeBusy      = lib.SQLITE_BUSY
	CodeCantOpen  = lib.SQLITE_CANTOPEN
	CodeCorrupt   = lib.SQLITE_CORRUPT
	CodeInterrupt = lib.SQLITE_INTERRUPT
	CodeNoMem     = lib.SQLITE_NOMEM
	CodeNotADB    = lib.SQLITE_NOTADB

	CodeReadonlyCantInit  = lib.SQLITE_READONLY_CANTINIT
	CodeReadonlyDirectory = lib.SQLITE_READONLY_DIRECTORY
	CodeReadonlyRollback  = lib.SQLITE_READONLY_ROLLBACK
)

// Run-time limits [Handle.Limit] sets.
const (
	LimitLength   = lib.SQLITE_LIMIT_LENGTH
	LimitAttached = lib.SQLITE_LIMIT_ATTACHED
)

// PreparePersistent is sqlite3_prepare_v3's flag for a statement that may be
// kept: it then does not hold the connection's lookaside memory.
const PreparePersistent = lib.SQLITE_PREPARE_PERSISTENT
