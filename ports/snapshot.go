package ports

import "context"

// Snapshotter writes a complete, consistent copy of the database file.
type Snapshotter interface {
	// Snapshot writes a new snapshot and returns where it is, as answers
	// show it (its absolute path, or over a transport whose answers leave
	// the machine its name in the snapshot folder), or ""
	// when snapshots are switched off (retention 0). The reason is for logs.
	//
	// Errors: [domain.ErrSnapshot] when a snapshot was required but could not
	// be written; no partial file is left behind.
	Snapshot(ctx context.Context, reason string) (path string, err error)
}
