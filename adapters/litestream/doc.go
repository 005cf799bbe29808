// Package litestream is the replication adapter: it streams the database's
// WAL to a Litestream replica (github.com/benbjohnson/litestream, used as a
// library) and restores a replica into a new file, to its latest state or to
// a point in time.
//
// Replication is a process-level concern: only the sidecar executable
// cmd/mcp-sqlite-memory-replicate links this package (the server runs it
// as a child process for --replicate and restore, and links no Litestream);
// the core never calls it, so there is no port. Several server processes
// may share one database file: each of their sidecars runs a [Replicator],
// but only the one holding an exclusive lock on "<db>.replicate.lock"
// streams; the others poll for the lock and take over when its holder
// exits (lock_unix.go, lock_windows.go).
//
// Litestream wants to control checkpoints: it holds a read transaction so
// that nobody else checkpoints past what it has copied, and it checkpoints
// itself. Every connection the server opens on a replicated database
// therefore runs with wal_autocheckpoint=0 (the SQLite adapter's
// Options.NoAutoCheckpoint, set by cmd/wire) and a 5 s busy timeout, as Litestream's
// documentation asks.
package litestream
