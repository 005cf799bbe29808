package sqlite_test

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/memory"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/recall"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/schema"
)

// testDB is one database with every service of it, for the tests that
// drive several ports of one file: the production wiring (cmd/wire) builds
// each service on its own, and each method here is the service's.
type testDB struct {
	*sqlite.Store
	*sqlite.StatementRunner
	*schema.Reader
	*schema.ViewWriter
	*sqlite.CandidateSource
	*memoryStore
	*sqlite.AuditSink
	*recall.Searcher
}

// memoryStore names memory.Store for the embedding (testDB embeds a
// sqlite.Store as well).
type memoryStore = memory.Store

// openTestDB opens the database at path (sqlite.Open) with its services.
func openTestDB(ctx context.Context, path string, opts sqlite.Options) (*testDB, error) {
	s, err := sqlite.Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return &testDB{Store: s, StatementRunner: sqlite.NewStatementRunner(s), Reader: schema.NewReader(s),
		ViewWriter: schema.NewViewWriter(s), CandidateSource: sqlite.NewCandidateSource(s), memoryStore: memory.New(s),
		AuditSink: sqlite.NewAuditSink(s), Searcher: recall.New(s)}, nil
}
