package ports

import "context"

// Snapshotter writes a complete, consistent copy of the database file.
type Snapshotter interface {
	// Snapshot writes a new snapshot and returns its absolute path, or ""
	// when snapshots are switched off (retention 0). The reason is for logs.
	//
	// Errors: [domain.ErrSnapshot] when a snapshot was required but could not
	// be written; no partial file is left behind.
	Snapshot(ctx context.Context, reason string) (path string, err error)
}
