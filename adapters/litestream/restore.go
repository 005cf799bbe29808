package litestream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	ls "github.com/benbjohnson/litestream"
)

// ErrNoBackup matches a restore that found nothing to restore: an empty
// replica, or a point in time before its first backup.
var ErrNoBackup = errors.New("no backup")

// Restore writes the database held by the replica at from into the new file
// to: its latest state, or its state at the instant at when at is not zero
// (the last transaction the replica recorded before at). to must not exist;
// Litestream writes to+".tmp" first and renames it. The file is not checked
// here: the caller verifies it before anyone uses it.
func Restore(ctx context.Context, from, to string, at time.Time, log *slog.Logger) error {
	client, err := newClient(from)
	if err != nil {
		return err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("replica", Redact(from)).With("component", "litestream")
	ls.LogWriter = os.Stderr // never stdout, as in New
	setLogger(client, log)
	if err := client.Init(ctx); err != nil {
		return fmt.Errorf("reach the replica %s: %w", Redact(from), err)
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("%s already exists; restore into a new path", to)
	}
	replica := ls.NewReplicaWithClient(nil, client)
	opt := ls.NewRestoreOptions()
	opt.OutputPath = to
	opt.Timestamp = at
	err = replica.Restore(ctx, opt)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ls.ErrNoSnapshots) || errors.Is(err, ls.ErrTxNotAvailable):
		if at.IsZero() {
			return fmt.Errorf("%w: the replica %s holds no backup yet (%v); check the URL, or start a server with --replicate on the database first", ErrNoBackup, Redact(from), err)
		}
		return fmt.Errorf("%w: the replica %s holds no backup from before %s (%v); pick a later --at, or leave --at out for the latest state",
			ErrNoBackup, Redact(from), at.UTC().Format(time.RFC3339Nano), err)
	}
	return fmt.Errorf("restore from %s: %w", Redact(from), err)
}
