package domain

import "fmt"

// replicationPrefix starts the names of the tables Litestream keeps in a
// database it replicates (_litestream_seq, _litestream_lock).
const replicationPrefix = "_litestream_"

// msgReplication refuses changes to Litestream's tables.
const msgReplication = "%s belongs to Litestream, which replicates this database (--replicate); it cannot be changed through SQL tools"

// IsReplicationName reports whether name is reserved for Litestream: it
// starts with "_litestream_" in any letter case. Litestream writes these
// tables on its own connection, where no policy runs, so an agent may not
// change them, create them first, or hang triggers or indexes on them; it
// may read them.
func IsReplicationName(name string) bool {
	return len(name) >= len(replicationPrefix) && equalFoldASCII(name[:len(replicationPrefix)], replicationPrefix)
}

// replicationMessage is the refusal for a change to a Litestream table.
func replicationMessage(name string) string { return fmt.Sprintf(msgReplication, name) }
