// Package undo serves the person's undo command over the SQLite adapter:
// it finds a destructive_query's snapshot, plans what restoring its objects
// would change, and restores them in one write transaction
// (docs/decisions.md#undo).
package undo

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/engine"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Undoer serves the person's undo command on db: it reads the destructive
// call from query_log, compares the user objects of its snapshot, of that
// snapshot with the call replayed and of the live file, and restores the
// objects the call changed in one transaction (restore.go). It works
// on private copies of the snapshot in a hidden folder beside it (which
// snapshot rotation leaves alone), removed by Close.
type Undoer struct {
	db   *sqlite.Store
	work string // the private folder, once Inspect made it
	src  string // the copy of the snapshot Restore reads
}

var _ ports.Undoer = (*Undoer)(nil)

// New returns the undoer of db. Close it when done.
func New(db *sqlite.Store) *Undoer { return &Undoer{db: db} }

// Close removes the private copies.
func (u *Undoer) Close() error {
	if u.work == "" {
		return nil
	}
	err := os.RemoveAll(u.work)
	u.work, u.src = "", ""
	return err
}

// writingTools are the tools whose calls change user objects.
const writingTools = "'" + domain.ToolWriteQuery + "', '" + domain.ToolDestructiveQuery + "', '" + domain.ToolCreateView + "', '" + domain.UndoTool + "'"

// Call returns call id's row (0: the latest destructive_query that
// succeeded with a snapshot and has not been undone, so that undo after
// undo walks back one call at a time) and the writing calls that
// succeeded after it.
func (u *Undoer) Call(ctx context.Context, id int64) (domain.UndoCall, error) {
	var c domain.UndoCall
	q := "SELECT id, ts, tool, coalesce(query, ''), ok, coalesce(json_extract(detail, '$.snapshot'), '') FROM query_log "
	var row *sql.Row
	if id == 0 {
		row = u.db.Internal().QueryRowContext(ctx, q+"WHERE tool = ? AND ok = 1 AND json_valid(detail) AND json_extract(detail, '$.snapshot') IS NOT NULL "+
			"AND id NOT IN (SELECT json_extract(detail, '$.call') FROM query_log WHERE tool = ? AND ok = 1 AND json_valid(detail)) ORDER BY id DESC LIMIT 1",
			domain.ToolDestructiveQuery, domain.UndoTool)
	} else {
		row = u.db.Internal().QueryRowContext(ctx, q+"WHERE id = ?", id)
	}
	var snap any
	err := row.Scan(&c.ID, &c.TS, &c.Tool, &c.Query, &c.OK, &snap)
	switch {
	case errors.Is(err, sql.ErrNoRows) && id == 0:
		return c, domain.Errorf(domain.ErrNotFound, "no %s call with a snapshot that is not undone yet in query_log: there is nothing to undo", domain.ToolDestructiveQuery)
	case errors.Is(err, sql.ErrNoRows):
		return c, domain.Errorf(domain.ErrNotFound, "no call #%d in query_log: see the log command for the calls (undo takes a %s call's id)", id, domain.ToolDestructiveQuery)
	case err != nil:
		return c, u.db.ConnError(ctx, err)
	}
	if s, ok := snap.(string); ok {
		c.Snapshot = s
	}
	rows, err := u.db.Internal().QueryContext(ctx, "SELECT id, ts, tool, coalesce(query, '') FROM query_log WHERE id > ? AND ok = 1 AND tool IN ("+writingTools+") ORDER BY id", c.ID)
	if err != nil {
		return c, u.db.ConnError(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var l domain.LoggedCall
		if err := rows.Scan(&l.ID, &l.TS, &l.Tool, &l.Query); err != nil {
			return c, u.db.ConnError(ctx, err)
		}
		c.Later = append(c.Later, l)
	}
	if err := rows.Err(); err != nil {
		return c, u.db.ConnError(ctx, err)
	}
	return c, nil
}

// Inspect copies the call's snapshot twice into a private folder beside
// it, replays the call's statement on one copy through a store of its own
// (the destructive tier's policy and authorizer, as the agent's call ran),
// and reads the user objects of the snapshot, of the replayed copy and of
// the live database.
func (u *Undoer) Inspect(ctx context.Context, call domain.UndoCall) (snapshot, after, live domain.UndoObjects, replayErr, err error) {
	info, err := os.Stat(call.Snapshot)
	if err != nil || !info.Mode().IsRegular() {
		return nil, nil, nil, nil, domain.Errorf(domain.ErrNotFound, "the snapshot of call #%d, %s, is gone (rotated out by newer snapshots, or removed); it cannot be undone. "+
			"Keep more snapshots with --snapshots N", call.ID, call.Snapshot)
	}
	// Only a snapshot of this database: a file named in a query_log row
	// is never read unless it has this database's snapshot name.
	if !domain.IsSnapshotOf(domain.SnapshotStem(u.db.Path()), filepath.Base(call.Snapshot)) {
		return nil, nil, nil, nil, domain.Errorf(domain.ErrNotFound, "call #%d names %s as its snapshot, which is not a snapshot name of %s (was the database renamed?); "+
			"restore it by hand with the snapshots command", call.ID, call.Snapshot, u.db.Name())
	}
	if err := u.Close(); err != nil {
		return nil, nil, nil, nil, err
	}
	if u.work, err = os.MkdirTemp(filepath.Dir(call.Snapshot), ".undo-*"); err != nil {
		return nil, nil, nil, nil, domain.Errorf(domain.ErrSnapshot, "cannot make a private folder beside the snapshot: %v", err)
	}
	u.src = filepath.Join(u.work, "snapshot.db")
	replayed := filepath.Join(u.work, "replayed.db")
	for _, dst := range []string{u.src, replayed} {
		if err := copyFile(call.Snapshot, dst); err != nil {
			return nil, nil, nil, nil, domain.Errorf(domain.ErrSnapshot, "cannot copy the snapshot %s: %v", call.Snapshot, err)
		}
	}
	if snapshot, err = fileObjects(ctx, u.src); err != nil {
		return nil, nil, nil, nil, domain.Errorf(domain.ErrSnapshot, "cannot read the snapshot %s: %v", call.Snapshot, err)
	}
	if replayErr = replay(ctx, replayed, call.Query, u.db.QueryTimeout()); replayErr == nil {
		if after, err = fileObjects(ctx, replayed); err != nil {
			return nil, nil, nil, nil, domain.Errorf(domain.ErrSnapshot, "cannot read the replayed copy of the snapshot: %v", err)
		}
	}
	live, err = u.liveObjects(ctx)
	return snapshot, after, live, replayErr, err
}

// replay runs sql on the database at path under the destructive tier, in
// a store of its own that writes no audit row, within the deadline the
// call had (timeout, 0 for none).
func replay(ctx context.Context, path, sql string, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	st, err := sqlite.Open(ctx, path, sqlite.Options{QueryTimeout: timeout})
	if err != nil {
		return err
	}
	_, err = sqlite.NewStatementRunner(st).Write(ctx, domain.WriteRequest{Tier: domain.TierDestructive, SQL: sql}, func([]string) {}, func([]any) bool { return true })
	return errors.Join(err, st.Close())
}

// liveObjects reads the live database's user objects in one read
// transaction.
func (u *Undoer) liveObjects(ctx context.Context) (domain.UndoObjects, error) {
	conn, err := u.db.Internal().Conn(ctx)
	if err != nil {
		return nil, u.db.ConnError(ctx, err)
	}
	defer conn.Close()
	var objs domain.UndoObjects
	err = conn.Raw(func(dc any) error {
		h, err := engine.Open(dc)
		if err != nil {
			return err
		}
		if err := h.Exec("BEGIN"); err != nil {
			return err
		}
		defer h.Exec("COMMIT")
		objs, err = readUndoObjects(h, "main", nil)
		return err
	})
	if err != nil {
		return nil, u.db.ConnError(ctx, err)
	}
	return objs, nil
}

// fileObjects reads the user objects of a private copy, read-only.
func fileObjects(ctx context.Context, path string) (domain.UndoObjects, error) {
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro"}).String())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var objs domain.UndoObjects
	err = conn.Raw(func(dc any) error {
		h, err := engine.Open(dc)
		if err != nil {
			return err
		}
		objs, err = readUndoObjects(h, "main", nil)
		return err
	})
	return objs, err
}

// copyFile copies a finished snapshot (which nothing writes) to a new file.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
