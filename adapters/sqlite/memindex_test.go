package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// indexRows counts what the search index holds, read through a raw
// connection as an outsider would.
func indexRows(t *testing.T, path string) (events, checkpoints int) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer raw.Close()
	require.NoError(t, raw.QueryRow("SELECT count(*) FILTER (WHERE rowid > 0), count(*) FILTER (WHERE rowid < 0) FROM memory_fts").Scan(&events, &checkpoints))
	return events, checkpoints
}

// eventCount counts memory_events through a raw connection.
func eventCount(t *testing.T, path string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer raw.Close()
	var n int
	require.NoError(t, raw.QueryRow("SELECT count(*) FROM memory_events").Scan(&n))
	return n
}

// rawExec runs statements through a raw connection to the file.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer raw.Close()
	for _, q := range stmts {
		_, err := raw.Exec(q)
		require.NoError(t, err, q)
	}
}

// search runs a query through the store's memory recall.
func search(t *testing.T, s *testDB, query string) ([]domain.MemoryHit, int64) {
	t.Helper()
	q, err := domain.ParseMemoryQuery(query)
	require.NoError(t, err)
	var hits []domain.MemoryHit
	res, err := s.Searcher.Search(context.Background(), domain.MemorySearch{Query: q, Limit: 10}, func(h domain.MemoryHit) { hits = append(hits, h) })
	require.NoError(t, err)
	return hits, res.Lag
}

func TestSearchIndexIsKeptInStepWithEveryAppend(t *testing.T) {
	s, path := mustOpenMemory(t)
	mustAppend(t, s, "note", "the cache moved to redis")
	c := mustCheckpoint(t, s, "redis is in; next the runbook")
	events, checkpoints := indexRows(t, path)
	assert.Equal(t, eventCount(t, path), events, "every event has its row, the checkpoint's seal included")
	assert.Equal(t, 1, checkpoints)

	hits, lag := search(t, s, "redis")
	require.Len(t, hits, 2)
	assert.Zero(t, lag)
	sources := []string{hits[0].Source, hits[1].Source}
	assert.ElementsMatch(t, []string{domain.SourceEvent, domain.SourceCheckpoint}, sources)
	for _, h := range hits {
		if h.Source == domain.SourceCheckpoint {
			assert.Equal(t, c.ID, h.ID)
			assert.Equal(t, domain.SourceCheckpoint, h.Kind)
		}
		assert.Contains(t, h.Snippet, "[redis]")
	}
	// The seal is indexed empty: its hash text is never a hit.
	hits, _ = search(t, s, "sha256")
	assert.Empty(t, hits)
}

// TestSearchIndexRollsBackWithItsAppend: an append whose transaction fails
// after the index took the row (here, at its audit row) leaves neither
// the event nor its index row.
func TestSearchIndexRollsBackWithItsAppend(t *testing.T) {
	s, path := mustOpenMemory(t)
	mustAppend(t, s, "note", "kept")
	rawExec(t, path, "CREATE TRIGGER fail_audit BEFORE INSERT ON query_log BEGIN SELECT RAISE(ABORT, 'audit refused'); END")
	_, err := s.Append(context.Background(), func(id int64, hash string) (domain.Event, error) {
		return domain.NewEvent(id, hash, memTS, memSession, "note", "rolled back")
	}, func(domain.Event) domain.AuditEntry {
		return domain.AuditEntry{TS: memTS, Session: memSession, Tool: domain.ToolAppendEvent, OK: true}
	})
	require.Error(t, err)
	_, err = s.memoryStore.Checkpoint(context.Background(), func(id int64, hash string) (domain.Checkpoint, error) {
		return domain.NewCheckpoint(id, hash, memTS, memSession, "rolled back too")
	}, func(domain.Checkpoint) domain.AuditEntry {
		return domain.AuditEntry{TS: memTS, Session: memSession, Tool: domain.ToolCheckpoint, OK: true}
	})
	require.Error(t, err)
	events, checkpoints := indexRows(t, path)
	assert.Equal(t, 1, events)
	assert.Equal(t, 0, checkpoints)
	hits, _ := search(t, s, "rolled")
	assert.Empty(t, hits)
}

// TestSearchIndexIsRebuiltAtOpen: an index dropped, emptied or left behind
// from outside (another program appended) is rebuilt when the file is
// next opened, and until then a search says how far it lags.
func TestSearchIndexIsRebuiltAtOpen(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper []string
	}{
		{"dropped", []string{"DROP TABLE memory_fts"}},
		{"emptied", []string{"DELETE FROM memory_fts"}},
		{"behind: another program appended", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path := mustOpenMemory(t)
			mustAppend(t, s, "note", "alpha one")
			mustAppend(t, s, "note", "alpha two")
			mustCheckpoint(t, s, "alpha done")
			rawExec(t, path, tc.tamper...)
			if tc.name == "behind: another program appended" {
				// What the reference server does: insert the row, no index.
				raw, err := sql.Open("sqlite", path)
				require.NoError(t, err)
				var e domain.Event
				require.NoError(t, raw.QueryRow("SELECT id, hash FROM memory_events ORDER BY id DESC LIMIT 1").Scan(&e.ID, &e.Hash))
				next, err := domain.NewEvent(e.ID, e.Hash, memTS, memSession, "note", "alpha three")
				require.NoError(t, err)
				_, err = raw.Exec("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
					next.ID, next.TS, next.Session, next.Kind, next.Content, next.PrevHash, next.Hash)
				require.NoError(t, err)
				require.NoError(t, raw.Close())
				hits, lag := search(t, s, "alpha")
				assert.Len(t, hits, 3, "the indexed ones are found")
				assert.Equal(t, int64(1), lag, "the search says one event is not indexed")
			}
			require.NoError(t, s.Close())
			s2, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 5 * time.Second})
			require.NoError(t, err)
			t.Cleanup(func() { s2.Close() })
			assert.True(t, s2.IndexRebuilt())
			hits, lag := search(t, s2, "alpha")
			assert.Zero(t, lag)
			want := 3
			if tc.name == "behind: another program appended" {
				want = 4
			}
			assert.Len(t, hits, want)
		})
	}
}

// TestSearchIndexDroppedWhileRunning: an index dropped from outside while
// the server runs does not stop the memory: appends and checkpoints go on
// (the schema, not an error's wording, says the index is gone), a search
// says there is no index, and the next open rebuilds it with every event.
func TestSearchIndexDroppedWhileRunning(t *testing.T) {
	s, path := mustOpenMemory(t)
	mustAppend(t, s, "note", "beta one")
	rawExec(t, path, "DROP TABLE memory_fts")
	mustAppend(t, s, "note", "beta two")
	mustCheckpoint(t, s, "beta done")
	q, err := domain.ParseMemoryQuery("beta")
	require.NoError(t, err)
	_, err = s.Searcher.Search(context.Background(), domain.MemorySearch{Query: q, Limit: 10}, func(domain.MemoryHit) {})
	assert.ErrorIs(t, err, domain.ErrUnavailable)
	require.NoError(t, s.Close())
	s2, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s2.Close() })
	assert.True(t, s2.IndexRebuilt())
	hits, lag := search(t, s2, "beta")
	assert.Zero(t, lag)
	assert.Len(t, hits, 3, "two events and the checkpoint")
}

// TestSearchIndexIsAServerObject: agent SQL cannot write, drop or hang a
// trigger on the index or its shadow tables, and reading it stays allowed.
func TestSearchIndexIsAServerObject(t *testing.T) {
	s, _ := mustOpenMemory(t)
	mustAppend(t, s, "note", "protected text")
	for _, q := range []string{
		"INSERT INTO memory_fts (rowid, text) VALUES (99, 'forged')",
		"INSERT INTO memory_fts (memory_fts) VALUES ('delete-all')",
		"DELETE FROM memory_fts",
		"DROP TABLE memory_fts",
		"DROP TABLE memory_fts_data",
		"INSERT INTO memory_fts_content (id, c0) VALUES (99, 'forged')",
		"CREATE TRIGGER t AFTER INSERT ON memory_fts_docsize BEGIN SELECT 1; END",
	} {
		_, err := write(t, s, domain.TierDestructive, q)
		assert.Error(t, err, q)
	}
	_, rows, err := readAll(t, s, "SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'protected'")
	require.NoError(t, err)
	assert.Len(t, rows, 1)
}

// TestSearchRanksAtMostTheNewestMatches: when more events match than
// domain.MaxRankedMatches, only the newest are ranked (BM25 reads each
// ranked row's length), checkpoints always are, and the result counts both.
func TestSearchRanksAtMostTheNewestMatches(t *testing.T) {
	s, path := mustOpenMemory(t)
	mustCheckpoint(t, s, "cache")
	require.NoError(t, s.Close())
	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	var first int
	require.NoError(t, raw.QueryRow("SELECT max(id) + 1 FROM memory_events").Scan(&first))
	tx, err := raw.Begin()
	require.NoError(t, err)
	n := domain.MaxRankedMatches + 50
	for i := first; i < first+n; i++ {
		content := "the cache is warm again after the restart"
		if i == first {
			content = "cache" // the best match by BM25, and the oldest
		}
		_, err := tx.Exec("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, 'note', ?, 'x', ?)",
			i, memTS, memSession, content, "h"+strconv.Itoa(i))
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit())
	require.NoError(t, raw.Close())
	s2, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s2.Close() })

	q, err := domain.ParseMemoryQuery("cache")
	require.NoError(t, err)
	var hits []domain.MemoryHit
	res, err := s2.Searcher.Search(context.Background(), domain.MemorySearch{Query: q, Limit: 3}, func(h domain.MemoryHit) { hits = append(hits, h) })
	require.NoError(t, err)
	assert.True(t, res.Unranked, "more events match than are ranked")
	assert.Equal(t, int64(domain.MaxRankedMatches), res.Matched, "the matches are counted up to the bound")
	assert.Equal(t, int64(domain.MaxRankedMatches), res.Ranked)
	require.Len(t, hits, 3)
	assert.Equal(t, domain.SourceCheckpoint, hits[0].Source, "the checkpoint is ranked, and its one-word summary is best")
	for _, h := range hits[1:] {
		assert.GreaterOrEqual(t, h.ID, int64(first+n-domain.MaxRankedMatches), "only the newest events are ranked")
	}
}

// TestSearchNeverPassesSyntaxToFTS5: whatever the agent writes, FTS5 only
// sees quoted strings, so no query is an FTS5 syntax error.
func TestSearchNeverPassesSyntaxToFTS5(t *testing.T) {
	s, _ := mustOpenMemory(t)
	mustAppend(t, s, "note", `quote " and NEAR(x y) and col:umn and ^start and a*b`)
	for _, query := range []string{`"" x`, `NEAR(a b)`, `col:umn`, `^start`, `a* b*`, `AND OR NOT`, `x"" ""y`, `"quote "`, `*x`, `x**`, `-x +y`, `{a b}`, `'single'`, "tab\tsep", `x:`} {
		q, err := domain.ParseMemoryQuery(query)
		if err != nil {
			assert.ErrorIs(t, err, domain.ErrInvalidArgument, query)
			continue
		}
		_, err = s.Searcher.Search(context.Background(), domain.MemorySearch{Query: q, Limit: 5}, func(domain.MemoryHit) {})
		assert.NoError(t, err, "%s -> %s", query, q.Match)
	}
}

// FuzzSearchQuery: no text an agent sends reaches FTS5 as syntax it
// refuses; ParseMemoryQuery either refuses it as an argument error or
// builds an expression FTS5 runs.
func FuzzSearchQuery(f *testing.F) {
	for _, seed := range []string{`a "b c" d*`, `NEAR(a, b)`, `"`, `x:y`, "\x00", `a AND (b OR c)`, `*`, `""""`} {
		f.Add(seed)
	}
	s, err := openTestDB(context.Background(), filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{QueryTimeout: 5 * time.Second})
	require.NoError(f, err)
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, query string) {
		q, err := domain.ParseMemoryQuery(query)
		if err != nil {
			if !errors.Is(err, domain.ErrInvalidArgument) {
				t.Fatalf("%q: %v", query, err)
			}
			return
		}
		if _, err := s.Searcher.Search(context.Background(), domain.MemorySearch{Query: q, Limit: 2}, func(domain.MemoryHit) {}); err != nil {
			t.Fatalf("%q -> %s: %v", query, q.Match, err)
		}
	})
}

// TestRebuildIndexesLikeAnAppend: the rebuild's SQL rule and an append's
// rule (domain.IndexedText) give every stored event the same indexed
// text: seals empty, look-alikes of every near shape kept.
func TestRebuildIndexesLikeAnAppend(t *testing.T) {
	s, path := mustOpenMemory(t)
	c := mustCheckpoint(t, s, "a summary")
	events := []domain.Event{
		{Kind: domain.SealKind, Content: domain.SealPrefix(9) + "00ff"},
		{Kind: domain.SealKind, Content: "checkpoint 9 sealed: sha256"},
		{Kind: domain.SealKind, Content: "checkpoint sealed: sha256 x"},
		{Kind: "note", Content: domain.SealPrefix(9) + "00ff"},
		{Kind: domain.SealKind, Content: "Checkpoint 9 sealed: sha256 00"},
		{Kind: domain.SealKind, Content: "checkpoint  sealed: sha256 "},
		{Kind: domain.SealKind, Content: "the checkpoint 9 sealed: sha256 00"},
		{Kind: "note", Content: "it's a plain 'note'"},
	}
	require.NoError(t, s.Close())
	before := eventCount(t, path)
	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	for i, e := range events {
		_, err := raw.Exec("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, 'x', ?)",
			c.LastEventID+2+int64(i), memTS, memSession, e.Kind, e.Content, "h"+strconv.Itoa(i))
		require.NoError(t, err)
	}
	require.NoError(t, raw.Close())
	s2, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 5 * time.Second})
	require.NoError(t, err)
	require.True(t, s2.IndexRebuilt())
	require.NoError(t, s2.Close())

	raw, err = sql.Open("sqlite", path)
	require.NoError(t, err)
	defer raw.Close()
	rows, err := raw.Query("SELECT e.id, e.kind, e.content, f.text FROM memory_events e JOIN memory_fts f ON f.rowid = e.id ORDER BY e.id")
	require.NoError(t, err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var e domain.Event
		var text string
		require.NoError(t, rows.Scan(&e.ID, &e.Kind, &e.Content, &text))
		assert.Equal(t, domain.IndexedText(e), text, "event %d %q", e.ID, e.Content)
		n++
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, before+len(events), n, "every event, the server's own (the checkpoint's seal) included")
}
