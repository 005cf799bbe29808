package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// dbUse is what a subcommand, as its command line asks, does with the
// database (see [command].use).
type dbUse struct {
	// writes marks a run that may change the database: a write tool, a
	// restore over it. Only such a run may add the server's tables to a
	// database that has none, and it says so first.
	writes bool
	// replaces marks a write that replaces the file's content whole
	// (snapshots restore --over) instead of opening it as the server does:
	// it adds no table, so there is nothing to announce.
	replaces bool
	// needs are the server's tables the run cannot work without; on a
	// database lacking one it stops with one line and changes nothing.
	needs []string
}

var (
	// memoryTables are the tables of the memory log.
	memoryTables = []string{"memory_events", "memory_checkpoints"}
	// auditTables is the audit log's table.
	auditTables = []string{"query_log"}
)

// useOf is cmd's dbUse under cfg; a command without a use function only
// reads and needs nothing.
func useOf(cmd *command, cfg settings.Config) dbUse {
	if cmd.use == nil {
		return dbUse{}
	}
	return cmd.use(cfg)
}

// lookFirst runs before a subcommand that works on --db. It opens the file
// read-only (which creates, bootstraps and locks nothing) and asks which of
// the server's tables it has. On the server's own database (all of them)
// the subcommand runs as the server would, its calls audited in query_log.
// Otherwise looking must not change the file:
//   - a run that writes says, before it starts, that it will add the
//     server's tables (and switch the file to WAL), as the server does at
//     its first start;
//   - a run that needs a missing table stops with one line saying that the
//     file holds no memory (or no audit log) and what to do;
//   - any other run reads the file as with --read-only, saying so in one
//     line, and its calls are logged nowhere (the file has no query_log,
//     and looking must not add one).
func lookFirst(ctx context.Context, cmd *command, cfg settings.Config, stderr io.Writer) (settings.Config, error) {
	if err := needExisting(cfg); err != nil {
		return cfg, err
	}
	use := useOf(cmd, cfg)
	if err := limitHeap(cfg); err != nil { // before SQLite's first open
		return cfg, err
	}
	store, err := sqlite.Open(ctx, cfg.DBPath, sqlite.Options{ReadOnly: true, QueryTimeout: cfg.Limits.QueryTimeout})
	if err != nil {
		return cfg, err
	}
	missing, err := store.MissingTables(ctx, sqlite.ServerTables()...)
	store.Close()
	if err != nil {
		return cfg, fmt.Errorf("read the tables of %s: %w", filepath.Base(cfg.DBPath), err)
	}
	if len(missing) == 0 {
		return cfg, nil
	}
	name := filepath.Base(cfg.DBPath)
	if use.writes {
		if !cfg.ReadOnly && !use.replaces { // --read-only refuses the write itself
			_, _ = fmt.Fprintf(stderr, "%s: %s lacks the server's tables (%s): adding them, with their append-only triggers and the query_errors view, "+
				"and switching the file to WAL, as the server does at its first start (use --read-only to only read it)\n",
				settings.ProgName, name, strings.Join(missing, ", "))
		}
		return cfg, nil
	}
	for _, need := range use.needs {
		if slices.Contains(missing, need) {
			return cfg, noMemoryError(cfg, name, need)
		}
	}
	if !cfg.ReadOnly {
		_, _ = fmt.Fprintf(stderr, "%s: %s holds no memory (it lacks the server's tables %s): reading it as with --read-only, which changes nothing\n",
			settings.ProgName, name, strings.Join(missing, ", "))
		cfg.ReadOnly, cfg.AuditDB, cfg.CLI.Looking = true, "", true
	}
	return cfg, nil
}

// noMemoryError is the one line for a run that needs a table the database
// lacks: what is missing, that nothing changed, and what to do.
func noMemoryError(cfg settings.Config, name, table string) error {
	return &lookError{fmt.Sprintf("%s holds no memory: it has no %s table, so no server has run on it; nothing was changed. "+
		"Start the server on it (%s --db %s) to add the server's tables, or look at its own tables with %s call --db %s read_query",
		name, table, settings.ProgName, cfg.DBPath, settings.ProgName, cfg.DBPath)}
}

// lookError is a reading subcommand's refusal of a database without the
// server's tables (exit status 1).
type lookError struct{ msg string }

// Error is the one line.
func (e *lookError) Error() string { return e.msg }

// callUse is call's dbUse: a tool that is not read-only writes, a memory
// tool needs the memory tables; an unknown tool (refused later) reads.
func callUse(cfg settings.Config) dbUse {
	if len(cfg.Args) == 0 {
		return dbUse{} // the tool list
	}
	for _, t := range domain.Tools() {
		if t.Name != cfg.Args[0] {
			continue
		}
		u := dbUse{writes: !t.ReadOnly()}
		if t.Memory {
			u.needs = memoryTables
		}
		return u
	}
	return dbUse{}
}

// unlogged is the audit sink of a look at a database without query_log:
// the call is recorded nowhere, since recording it would add the table.
type unlogged struct{}

// Record stores nothing.
func (unlogged) Record(context.Context, domain.AuditEntry) error { return nil }
