package main

import (
	"errors"
	"io"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
)

// startReplication runs the replication sidecar (sidecar.go) beside the
// server when --replicate is set, at sidecar, and waits until it has set up
// replication (the lock file made) or refused to. The returned stop ends it
// (a last sync, then the lock is released) and waits; it must run after
// the store's connections are closed.
func startReplication(cfg settings.Config, sidecar, dbPath string, stderr io.Writer) (stop func(), err error) {
	if cfg.Replicate == "" {
		return func() {}, nil
	}
	args := []string{"run", "--db", dbPath, "--sync-interval", cfg.ReplicateSync.String()}
	if cfg.Verbose {
		args = append(args, "-v")
	}
	p, err := startSidecar(sidecar, cfg.Replicate, args, stderr)
	if err != nil {
		return nil, err
	}
	c, err := p.next()
	if err == nil && c.Error != "" {
		err = controlError(c)
	}
	if err != nil {
		_ = p.stop()
		var se *sidecarError
		if errors.As(err, &se) && se.usage {
			return nil, settings.Usagef("invalid %s: %s", cfg.ReplicateFrom, se.msg)
		}
		return nil, err
	}
	// The server's own shutdown, not the signal that caused it, ends
	// replication (the sidecar ignores SIGINT), so that the last sync runs
	// after the last call.
	return func() { _ = p.stop() }, nil
}
