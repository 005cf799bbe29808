package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/jsonlog"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/litestream"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// restoreCommand is the subcommand's name: mcp-sqlite-memory restore ...
const restoreCommand = "restore"

// restoreUsage is `restore -h`.
const restoreUsage = `Usage: ` + progName + ` restore --from URL --to PATH [--at TIME]

Restore a Litestream replica (written by a server run with --replicate) into a
new database file, then check it: PRAGMA integrity_check and the memory chain
(verify_chain) must pass, or the file is not kept.

  --from URL   the replica: file:///folder or s3://bucket/path, as given
               to --replicate (credentials and endpoint from the same
               variables)
  --to PATH    the new database file; refused if it (or its -wal, -shm or
               -journal file) exists
  --at TIME    restore the state at this instant instead of the latest:
               RFC 3339, e.g. 2026-12-01T15:04:05Z or
               2026-12-01T15:04:05.250+01:00 (the last transaction the
               replica recorded before it)
  -v           Litestream's debug logging on stderr
`

// runRestore is the restore subcommand. It prints one summary line on
// stdout when the restored file is in place and verified.
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(progName+" "+restoreCommand, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var from, to, at string
	var verbose, help bool
	fs.StringVar(&from, "from", "", "")
	fs.StringVar(&to, "to", "", "")
	fs.StringVar(&at, "at", "", "")
	fs.BoolVar(&verbose, "v", false, "")
	fs.BoolVar(&help, "h", false, "")
	fs.BoolVar(&help, "help", false, "")
	if err := fs.Parse(args); err != nil {
		return usagef("restore: %v (see restore -h)", err)
	}
	if help {
		_, err := io.WriteString(stderr, restoreUsage)
		return err
	}
	if fs.NArg() > 0 {
		return usagef("restore: unexpected argument %q; every setting is a flag (see restore -h)", fs.Arg(0))
	}
	if from == "" || to == "" {
		return usagef("restore needs --from URL and --to PATH (see restore -h)")
	}
	if err := litestream.CheckURL(from); err != nil {
		return usagef("restore: invalid --from: %v", err)
	}
	var when time.Time
	if at != "" {
		var err error
		if when, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(at)); err != nil {
			return usagef("restore: invalid --at %q: want an RFC 3339 time such as 2026-12-01T15:04:05Z", at)
		}
	}
	dest, err := filepath.Abs(expandHome(to, homeDir(os.Getenv)))
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
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	// Restore beside the destination under a private name, verify, and only
	// then give it the name asked for, so a damaged or half-written file is
	// never found at --to.
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".restoring-"+hex.EncodeToString(rnd[:]))
	defer removeDB(tmp)
	if err := litestream.Restore(ctx, from, tmp, when, log); err != nil {
		return err
	}
	report, err := verifyRestored(ctx, tmp)
	if err != nil {
		return fmt.Errorf("restore: the restored database failed verification and was not kept: %w", err)
	}
	if err := placeNew(tmp, dest); err != nil {
		return err
	}
	point := "latest state"
	if !when.IsZero() {
		point = "state at " + when.UTC().Format(time.RFC3339Nano)
	}
	_, err = fmt.Fprintf(stdout, "restored %s (%s) to %s: integrity_check ok, %s\n", litestream.Redact(from), point, dest, report)
	return err
}

// verifyRestored opens the file read-only and runs integrity_check and the
// chain verification; it returns a short report of the chain.
func verifyRestored(ctx context.Context, path string) (string, error) {
	store, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	if err != nil {
		return "", err
	}
	defer store.Close()
	var problems []string
	err = store.Read(ctx, "PRAGMA integrity_check", func([]string) {}, func(row []any) bool {
		if s := fmt.Sprint(row[0]); s != "ok" {
			problems = append(problems, s)
		}
		return len(problems) < 5
	})
	if err != nil {
		return "", fmt.Errorf("integrity_check: %w", err)
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("integrity_check: %s", strings.Join(problems, "; "))
	}
	memory, err := store.Available(ctx)
	if err != nil {
		return "", err
	}
	if !memory {
		return "no memory chain in this database", nil
	}
	svc := app.New(app.Deps{Statements: store, Catalog: store, Memory: store, Audit: jsonlog.New(io.Discard), Clock: systemClock{}, Search: regexp2.New()},
		app.Options{Limits: domain.DefaultLimits(), Session: newSession(time.Now())})
	out, err := svc.VerifyChain(ctx, "")
	if err != nil {
		return "", fmt.Errorf("verify_chain: %w", err)
	}
	var res struct {
		OK     bool  `json:"ok"`
		Events int64 `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return "", fmt.Errorf("verify_chain answered %q: %w", out, err)
	}
	if !res.OK {
		return "", fmt.Errorf("verify_chain: %s", out)
	}
	return fmt.Sprintf("verify_chain ok (%d events)", res.Events), nil
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
