package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	wiring "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// restoreCommand restores a Litestream replica into a new file. Unlike the
// other subcommands it works on no --db: the database it makes is --to.
var restoreCommand = &command{
	name:    "restore",
	args:    "--from URL --to PATH [--at TIME]",
	summary: "Restores a Litestream replica (written by a server run with --replicate) into a new\ndatabase file, then checks it: PRAGMA integrity_check and the memory chain\n(verify_chain) must pass, or the file is not kept.",
	help: `  --from URL                the replica: file:///folder or s3://bucket/path, as
                            given to --replicate (credentials and endpoint from
                            the same variables)
  --to PATH                 the new database file; refused if it (or its -wal,
                            -shm or -journal file) exists
  --at TIME                 the state at this instant instead of the latest: RFC
                            3339, e.g. 2026-12-01T15:04:05Z or
                            2026-12-01T15:04:05.250+01:00 (the last transaction
                            the replica recorded before it)
  -v                        Litestream's debug logging on stderr
  --json                    {"restored": PATH, "from": URL, "at": TIME or null,
                            "events": N, "memory": true or false}
`,
	flags: func(fs *flag.FlagSet, o *settings.CLIOptions) {
		fs.StringVar(&o.From, "from", "", "")
		fs.StringVar(&o.To, "to", "", "")
		fs.StringVar(&o.At, "at", "", "")
	},
	run:  runRestore,
	noDB: true,
}

// restoreJSON is restore's --json answer.
type restoreJSON struct {
	Restored string  `json:"restored"`
	From     string  `json:"from"`
	At       *string `json:"at"`
	Events   int64   `json:"events"`
	Memory   bool    `json:"memory"`
}

// runRestore is the restore subcommand. It prints one summary line on
// stdout when the restored file is in place and verified.
func runRestore(ctx context.Context, cfg settings.Config, _ io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	from, to, at := cfg.CLI.From, cfg.CLI.To, cfg.CLI.At
	if from == "" || to == "" {
		return settings.Usagef("restore needs --from URL and --to PATH (see %s restore --help)", settings.ProgName)
	}
	if err := domain.CheckReplicaURL(from, os.Getenv); err != nil {
		return settings.Usagef("restore: invalid --from: %v", err)
	}
	var when time.Time
	if at != "" {
		var err error
		if when, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(at)); err != nil {
			return settings.Usagef("restore: invalid --at %q: want an RFC 3339 time such as 2026-12-01T15:04:05Z", at)
		}
	}
	dest, err := filepath.Abs(settings.ExpandHome(to, settings.HomeDir(os.Getenv)))
	if err != nil {
		return fmt.Errorf("resolve --to: %v", err)
	}
	for _, p := range []string{dest, dest + "-wal", dest + "-shm", dest + "-journal"} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("restore: %s already exists; restore into a new path (nothing is ever overwritten)", p)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("restore: create the folder of --to: %w", err)
	}
	sidecar, err := findSidecar(os.Getenv, "restore")
	if err != nil {
		return err
	}

	// Restore beside the destination under a private name, verify, and only
	// then give it the name asked for, so a damaged or half-written file is
	// never found at --to.
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".restoring-"+hex.EncodeToString(rnd[:]))
	defer removeDB(tmp)
	if err := restoreWithSidecar(ctx, cfg, sidecar, tmp, when, stderr); err != nil {
		return err
	}
	events, memory, err := verifyRestored(ctx, tmp)
	if err != nil {
		return fmt.Errorf("restore: the restored database failed verification and was not kept: %w", err)
	}
	if err := placeNew(tmp, dest); err != nil {
		return err
	}
	if cfg.CLI.JSON {
		res := restoreJSON{Restored: dest, From: domain.RedactURL(from), Events: events, Memory: memory}
		if !when.IsZero() {
			s := when.UTC().Format(time.RFC3339Nano)
			res.At = &s
		}
		return printJSON(stdout, res)
	}
	point := "latest state"
	if !when.IsZero() {
		point = "state at " + when.UTC().Format(time.RFC3339Nano)
	}
	chain := "no memory chain in this database"
	if memory {
		chain = fmt.Sprintf("verify_chain ok (%d events)", events)
	}
	_, err = fmt.Fprintf(stdout, "restored %s (%s) to %s: integrity_check ok, %s\n", domain.RedactURL(from), point, dest, chain)
	return err
}

// restoreWithSidecar has the replication sidecar write the replica's state
// (at when, unless zero) into the new file tmp.
func restoreWithSidecar(ctx context.Context, cfg settings.Config, sidecar, tmp string, when time.Time, stderr io.Writer) error {
	args := []string{"restore", "--to", tmp}
	if !when.IsZero() {
		args = append(args, "--at", when.Format(time.RFC3339Nano))
	}
	if cfg.Verbose {
		args = append(args, "-v")
	}
	p, err := startSidecar(sidecar, cfg.CLI.From, args, stderr)
	if err != nil {
		return err
	}
	c, cerr := p.next()
	werr := p.wait(ctx)
	switch {
	case cerr != nil:
		return cerr
	case c.Error != "":
		var se *sidecarError
		if err := controlError(c); errors.As(err, &se) && se.usage {
			return settings.Usagef("restore: invalid --from: %s", se.msg)
		}
		return controlError(c)
	case !c.Done:
		return fmt.Errorf("%s did not restore (%v)", sidecarName, werr)
	}
	return nil
}

// verifyRestored opens the file read-only and runs integrity_check and the
// chain verification; memory is false for a database without the memory
// tables (a replica of some other database).
func verifyRestored(ctx context.Context, path string) (events int64, memory bool, err error) {
	// The server's own wiring, read-only: its audit lines are dropped.
	w, err := wiring.Open(ctx, wiring.Options{DBPath: path, ReadOnly: true, Limits: domain.DefaultLimits(),
		Version: buildVersion(), Session: newSession(time.Now()), Stderr: io.Discard})
	if err != nil {
		return 0, false, err
	}
	defer w.Close()
	store := w.Deps.Statements
	var problems []string
	err = store.Read(ctx, "PRAGMA integrity_check", func([]string) {}, func(row []any) bool {
		if s := fmt.Sprint(row[0]); s != "ok" {
			problems = append(problems, s)
		}
		return len(problems) < 5
	})
	if err != nil {
		return 0, false, fmt.Errorf("integrity_check: %w", err)
	}
	if len(problems) > 0 {
		return 0, false, fmt.Errorf("integrity_check: %s", strings.Join(problems, "; "))
	}
	if !w.Memory {
		return 0, false, nil
	}
	answer, err := w.Service.VerifyChain(ctx, domain.VerifyChainRequest{})
	out := answer.Text
	if err != nil {
		return 0, true, fmt.Errorf("verify_chain: %w", err)
	}
	var res verifyJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return 0, true, fmt.Errorf("verify_chain answered %q: %w", out, err)
	}
	if !res.OK {
		return 0, true, fmt.Errorf("verify_chain: %s", out)
	}
	return res.Events, true, nil
}

// placeNew gives the verified file at tmp the name dest without ever
// replacing a file that appeared there meanwhile: a hard link fails when
// dest exists. Where links are unsupported it falls back to a rename after
// one more check.
func placeNew(tmp, dest string) error {
	err := os.Link(tmp, dest)
	if err == nil {
		return nil
	}
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("restore: %s appeared while restoring; nothing was overwritten, restore into a new path", dest)
	}
	if _, serr := os.Lstat(dest); serr == nil {
		return fmt.Errorf("restore: %s appeared while restoring; nothing was overwritten, restore into a new path", dest)
	}
	if rerr := os.Rename(tmp, dest); rerr != nil {
		return fmt.Errorf("restore: name the restored file %s: %w", dest, rerr)
	}
	return nil
}

// removeDB removes a database file and what SQLite or Litestream may have
// left beside it.
func removeDB(path string) {
	for _, p := range []string{path, path + ".tmp", path + "-wal", path + "-shm", path + "-journal"} {
		_ = os.Remove(p)
	}
}
