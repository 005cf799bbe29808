package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The server relies on its own objects: the append-only triggers, the
// audit table, its index and the query_errors view. bootstrapSQL creates
// them IF NOT EXISTS, so a file prepared with a look-alike (a trigger
// named like a guard that does nothing) or with an extra trigger on a
// server table (one that silently drops audit rows) would be trusted.
// checkServerObjects compares every server object with the definition
// bootstrapSQL gives it, and refuses extra triggers and indexes on the
// server tables, before bootstrapSQL runs.

// schemaEntry is one row of sqlite_schema.
type schemaEntry struct {
	Type, Name, Table, SQL string
}

// expectedObjects returns the server objects by lower-cased name: what
// SQLite stores in sqlite_schema when bootstrapSQL and the memory's side
// tables, search index (with the shadow tables FTS5 makes for it),
// approvals and signatures are run in an empty database, so the
// comparison uses SQLite's own normalisation of the text (the same for
// every server version and for the Python reference, whose bootstrap
// script is the same). The entries are generated (serverobjects_gen.go,
// kept current by TestServerObjectsAreCurrent), not built at each start:
// building them cost an in-memory database and the parse of every
// statement, about half the instructions of a start with its open
// (docs/decisions.md#server-objects-at-startup).
var expectedObjects = sync.OnceValue(func() map[string]schemaEntry {
	m := make(map[string]schemaEntry, len(serverObjects))
	for _, e := range serverObjects {
		m[strings.ToLower(e.Name)] = e
	}
	return m
})

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func schemaEntries(ctx context.Context, q querier) ([]schemaEntry, error) {
	rows, err := q.QueryContext(ctx, "SELECT type, name, tbl_name, coalesce(sql, '') FROM main.sqlite_schema ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schemaEntry
	for rows.Next() {
		var e schemaEntry
		if err := rows.Scan(&e.Type, &e.Name, &e.Table, &e.SQL); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// sameDefinition compares two stored definitions up to whitespace.
func sameDefinition(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// serverObjectProblem is one server object that is not what the server
// made, and whether it may be rewritten (never a table: it holds data).
type serverObjectProblem struct {
	entry      schemaEntry
	extra      bool // not a server object, but attached to a server table
	repairable bool
}

// checkServerObjects returns the server objects of the file on conn that
// differ from their definition, and the extra triggers and indexes on
// server tables.
func checkServerObjects(ctx context.Context, conn *sql.Conn) ([]serverObjectProblem, error) {
	want := expectedObjects()
	got, err := schemaEntries(ctx, conn)
	if err != nil {
		return nil, err
	}
	var out []serverObjectProblem
	for _, e := range got {
		w, isServer := want[strings.ToLower(e.Name)]
		switch {
		case isServer && strings.EqualFold(e.Type, w.Type) && strings.EqualFold(e.Table, w.Table) && sameDefinition(e.SQL, w.SQL):
		case isServer:
			out = append(out, serverObjectProblem{entry: e, repairable: e.Type != "table" && w.Type != "table"})
		case (e.Type == "trigger" || e.Type == "index") && domain.IsServerTable(e.Table):
			out = append(out, serverObjectProblem{entry: e, extra: true, repairable: true})
		}
	}
	return out, nil
}

// serverObjectError words the first problem as one line: the object, what
// is wrong, and what to do.
func (s *Store) serverObjectError(p serverObjectProblem) error {
	e := p.entry
	switch {
	case !p.repairable:
		return fmt.Errorf("%s: server %s %s does not have the server's definition; the server never rewrites a table that holds data: "+
			"open another --db file, or rename it with the sqlite3 shell (ALTER TABLE %s RENAME TO ...) and restart",
			s.name, e.Type, domain.Quote(e.Name), quoteIdent(e.Name))
	case p.extra:
		return fmt.Errorf("%s: %s %s on server table %s was not made by the server (it could drop or forge audit and memory rows); "+
			"restart with --repair-server-objects to drop it, or drop it with the sqlite3 shell",
			s.name, e.Type, domain.Quote(e.Name), e.Table)
	default:
		return fmt.Errorf("%s: server %s %s does not have the server's definition (a look-alike could leave the append-only tables unprotected); "+
			"restart with --repair-server-objects to rewrite it, or drop it with the sqlite3 shell",
			s.name, e.Type, domain.Quote(e.Name))
	}
}

// verifyServerObjects runs inside bootstrap's transaction: with repair it
// drops the look-alike and extra triggers, indexes and views (bootstrapSQL
// then recreates the server's own); otherwise, or for a table, it refuses.
func (s *Store) verifyServerObjects(ctx context.Context, conn *sql.Conn) error {
	problems, err := checkServerObjects(ctx, conn)
	if err != nil {
		return err
	}
	for _, p := range problems {
		if !s.opts.RepairServerObjects || !p.repairable {
			return s.serverObjectError(p)
		}
	}
	for _, p := range problems {
		drop := "DROP " + strings.ToUpper(p.entry.Type) + " " + quoteIdent(p.entry.Name)
		if _, err := conn.ExecContext(ctx, drop); err != nil {
			return fmt.Errorf("%s: repair %s %s: %s", s.name, p.entry.Type, domain.Quote(p.entry.Name), s.scrub(err.Error()))
		}
		s.repaired = append(s.repaired, p.entry.Type+" "+domain.Quote(p.entry.Name))
	}
	return nil
}

// Repaired lists the objects --repair-server-objects dropped at startup
// (bootstrap then recreated the server's own), for the log.
func (s *Store) Repaired() []string { return s.repaired }
