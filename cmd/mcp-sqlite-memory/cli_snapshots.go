package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"io"
	"os"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
)

var snapshotsCommand = &command{
	name:    "snapshots",
	args:    "[list | restore NAME (--to PATH | --over)]",
	summary: "Lists the database's snapshots, or restores one.",
	help: `  list (the default)        the snapshots of this database, oldest first
  restore NAME --to PATH    copy snapshot NAME into the new file PATH (never
                            overwrites a file); the database is not touched
  restore NAME --over       copy snapshot NAME over the database itself: first a
                            fresh snapshot of the database is taken (so the
                            restore can be undone), then the copy is written as
                            one transaction through SQLite's backup API, so a
                            running server waits for it like for any writer and
                            then sees the restored file. This rewinds everything,
                            the memory chain and query_log included. Refused with
                            --read-only and with --snapshots 0.
  --json                    list: {"dir": DIR, "snapshots": [{"name", "path",
                            "bytes", "modified"}]}; restore: {"restored": NAME,
                            "to": PATH, "fresh_snapshot": PATH or null}
`,
	flags: func(fs *flag.FlagSet, o *settings.CLIOptions) {
		fs.StringVar(&o.To, "to", "", "")
		fs.BoolVar(&o.Over, "over", false, "")
	},
	run: runSnapshots,
	use: func(cfg settings.Config) dbUse {
		// restore --to writes a new file and only reads the snapshot.
		return dbUse{writes: cfg.CLI.Over, replaces: true}
	},
}

func runSnapshots(ctx context.Context, cfg settings.Config, _ io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 2); err != nil {
		return err
	}
	action := "list"
	if len(cfg.Args) > 0 {
		action = cfg.Args[0]
	}
	switch {
	case action == "list" && len(cfg.Args) <= 1:
		if cfg.CLI.To != "" || cfg.CLI.Over {
			return settings.Usagef("--to and --over go with snapshots restore NAME")
		}
	case action == "restore" && len(cfg.Args) == 2:
		if (cfg.CLI.To == "") == !cfg.CLI.Over {
			return settings.Usagef("snapshots restore NAME needs exactly one of --to PATH (a new file) and --over (the database, after a fresh snapshot)")
		}
		if cfg.CLI.Over && cfg.ReadOnly {
			return settings.Usagef("--over writes the database, which --read-only forbids: restore with --to PATH into a new file")
		}
	default:
		return settings.Usagef("snapshots takes list, or restore NAME with --to PATH or --over (see %s snapshots --help)", settings.ProgName)
	}
	if err := needExisting(cfg); err != nil {
		return err
	}
	snaps := newSnapshotter(cfg, cliLogger(cfg, stderr))
	if action == "list" {
		return listSnapshots(snaps, cfg, stdout)
	}
	name := cfg.Args[1]
	out := struct {
		Restored string  `json:"restored"`
		To       string  `json:"to"`
		Fresh    *string `json:"fresh_snapshot"`
	}{Restored: name}
	if cfg.CLI.Over {
		fresh, err := snaps.RestoreOver(ctx, name)
		if err != nil {
			return err
		}
		out.To, out.Fresh = cfg.DBPath, &fresh
	} else {
		dst, err := restoreTarget(cfg)
		if err != nil {
			return err
		}
		if err := snaps.RestoreTo(ctx, name, dst); err != nil {
			return err
		}
		out.To = dst
	}
	if cfg.CLI.JSON {
		return printJSON(stdout, out)
	}
	var err error
	if out.Fresh != nil {
		_, err = fmt.Fprintf(stdout, "saved the database as %s\nrestored %s over %s\n", *out.Fresh, name, out.To)
	} else {
		_, err = fmt.Fprintf(stdout, "restored %s into %s\n", name, out.To)
	}
	return err
}

// restoreTarget is --to made absolute, refused when it would be the
// database or one of its -wal, -shm and -journal files (SQLite would take a
// database written there for its journal).
func restoreTarget(cfg settings.Config) (string, error) {
	dst, err := settings.AbsKeepDots(settings.ExpandHome(cfg.CLI.To, settings.HomeDir(os.Getenv)))
	if err != nil {
		return "", fmt.Errorf("resolve --to: %v", err)
	}
	real, err := settings.ResolveMissing(dst)
	if err != nil {
		return dst, nil // creating it reports the problem
	}
	db, err := settings.ResolveMissing(cfg.DBPath)
	if err != nil {
		db = cfg.DBPath
	}
	for _, suffix := range settings.SQLiteCompanions {
		if settings.SameFile(real, db+suffix) {
			return "", settings.Usagef("--to must be a new file, not the database or its %s file: use --over to restore over the database", suffix)
		}
	}
	return dst, nil
}

func listSnapshots(snaps *snapshot.Snapshotter, cfg settings.Config, stdout io.Writer) error {
	list, err := snaps.List()
	if err != nil {
		return err
	}
	if cfg.CLI.JSON {
		type item struct {
			Name     string    `json:"name"`
			Path     string    `json:"path"`
			Bytes    int64     `json:"bytes"`
			Modified time.Time `json:"modified"`
		}
		items := []item{}
		for _, s := range list {
			items = append(items, item{s.Name, s.Path, s.Bytes, s.Modified.UTC()})
		}
		return printJSON(stdout, map[string]any{"dir": snaps.Dir(), "snapshots": items})
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(stdout, "no snapshots in %s\n", snaps.Dir())
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%d snapshots in %s:\n", len(list), snaps.Dir()); err != nil {
		return err
	}
	for _, s := range list {
		if _, err := fmt.Fprintf(stdout, "%s  %10d bytes  %s\n", s.Name, s.Bytes, s.Modified.UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return nil
}
