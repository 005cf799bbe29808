package tools_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// chainFile writes a bootstrapped file holding a valid chain of the given
// contents (one a second, kind note) the way another program would, and
// opens a server on it, which indexes them.
func chainFile(t *testing.T, contents []string) *harness.Env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chain.db")
	store, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	require.NoError(t, err)
	require.NoError(t, store.Close())
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	tx, err := db.Begin()
	require.NoError(t, err)
	defer tx.Rollback()
	prev, head := int64(0), domain.Genesis
	at := time.Date(2026, 9, 13, 10, 0, 0, 0, time.UTC)
	for i, c := range contents {
		e, err := domain.NewEvent(prev, head, domain.FormatTS(at.Add(time.Duration(i)*time.Second)), "s", domain.DefaultKind, c)
		require.NoError(t, err)
		_, err = tx.Exec("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)", e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash)
		require.NoError(t, err)
		prev, head = e.ID, e.Hash
	}
	require.NoError(t, tx.Commit())
	return harness.New(t, harness.Config{DBPath: path})
}

// TestSearchMemoryRanksTheNewestMatchesOnly pins the ranking bound
// docs/decisions.md states (domain.MaxRankedMatches, 2,000): with 2,002
// matching events, the newest 2,000 are ranked and the two oldest are not. Events 2 and 3
// say "cache" three times (the best BM25 of all); 3 is the oldest ranked,
// 2 the newest left out, so 2 never follows 3 although it ties with it.
// The trailer says that more matched than were ranked (not how many: a
// count would walk every match).
func TestSearchMemoryRanksTheNewestMatchesOnly(t *testing.T) {
	const n, ranked = 2002, 2000
	contents := make([]string, n)
	for i := range contents {
		contents[i] = "the cache is warm again after restart " + strconv.Itoa(i+1)
	}
	contents[1], contents[2] = "cache cache cache", "cache cache cache"
	env := chainFile(t, contents)
	out := env.MustCall(t, domain.ToolSearchMemory, map[string]any{"query": "cache", "limit": 2})
	refs, _ := memHits(t, out)
	require.Len(t, refs, 2, out)
	assert.Equal(t, "event:3", refs[0], "the oldest ranked event has the best score")
	assert.NotEqual(t, "event:2", refs[1], "event 2 is older than the newest %d matches: never ranked", ranked)
	assert.Contains(t, out, fmt.Sprintf("\n# more than %d events match; the newest %d (and every checkpoint) were ranked", ranked, ranked))
}

// TestSearchMemoryPrefixSnippetsAndRetractions: a prefix query reads its
// hits' snippets in one pass and counts its retracted matches in its own
// walk; each snippet is the one FTS5 gives that row alone, the retracted
// event is no hit and the trailer counts it.
func TestSearchMemoryPrefixSnippetsAndRetractions(t *testing.T) {
	var contents []string
	for i := range 30 {
		contents = append(contents, fmt.Sprintf("step %d: the migration of table t%d was %s, then we waited %d s", i, i, []string{"migrated", "rolled back", "retried"}[i%3], i))
	}
	env := chainFile(t, contents)
	env.MustCall(t, domain.ToolRetractEvent, map[string]any{"id": 28, "reason": "wrong"})
	out := env.MustCall(t, domain.ToolSearchMemory, map[string]any{"query": "migrat*", "limit": 12})
	refs, rows := memHits(t, out)
	require.Len(t, rows, 12, out)
	assert.NotContains(t, refs, "event:28", "a retracted event is never a hit")
	assert.Contains(t, out, "\n# "+domain.RetractedLine(1))
	assert.Contains(t, out, "more rows")

	db, err := sql.Open("sqlite", env.DBPath)
	require.NoError(t, err)
	defer db.Close()
	q, err := domain.ParseMemoryQuery("migrat*")
	require.NoError(t, err)
	for _, r := range rows {
		var want string
		require.NoError(t, db.QueryRow("SELECT snippet(memory_fts, 0, '[', ']', '...', 24) FROM memory_fts WHERE memory_fts MATCH ? AND rowid = ?", q.Match, r[1]).Scan(&want))
		assert.Equal(t, want, r[5], "snippet of event %s", r[1])
		assert.True(t, strings.Contains(r[5], "[migrat"), r[5])
	}
}

// TestSearchMemorySnippetsAreEachRowsOwn: however the hits' snippets are
// read (one walk over a narrow rowid range, one seek each when the hits
// are spread wider, the checkpoints apart from the events), each is the
// one FTS5 gives that row alone.
func TestSearchMemorySnippetsAreEachRowsOwn(t *testing.T) {
	contents := make([]string, 9000)
	for i := range contents {
		contents[i] = fmt.Sprintf("filler event %d about nothing in particular", i+1)
	}
	for _, i := range []int{0, 8999, 8990, 8995} { // ids 1 and 9000 are 8,999 apart
		contents[i] = fmt.Sprintf("the zebra migration of step %d went well, zebra after zebra", i+1)
	}
	env := chainFile(t, contents)
	env.MustCall(t, domain.ToolCheckpoint, map[string]any{"summary": "zebra migration done; the herd is counted"})
	db, err := sql.Open("sqlite", env.DBPath)
	require.NoError(t, err)
	defer db.Close()
	for _, query := range []string{"zebra", "zebra migration", "step 8991 zebra", "herd"} {
		out := env.MustCall(t, domain.ToolSearchMemory, map[string]any{"query": query, "limit": 10})
		_, rows := memHits(t, out)
		q, err := domain.ParseMemoryQuery(query)
		require.NoError(t, err)
		for _, r := range rows {
			rowid, err := strconv.ParseInt(r[1], 10, 64)
			require.NoError(t, err)
			if r[0] == domain.SourceCheckpoint {
				rowid = -rowid
			}
			var want string
			require.NoError(t, db.QueryRow("SELECT snippet(memory_fts, 0, '[', ']', '...', 24) FROM memory_fts WHERE memory_fts MATCH ? AND rowid = ?", q.Match, rowid).Scan(&want))
			assert.Equal(t, want, r[5], "%q: snippet of %s %s", query, r[0], r[1])
			assert.Contains(t, r[5], "[", "%q: the snippet marks the match", query)
		}
		if query == "zebra" {
			assert.Len(t, rows, 5, "four events and the checkpoint: %s", out)
		}
	}
}

// TestSearchMemoryTiesAtTheCut: rows that tie in BM25 are ordered by time,
// newest first, whether the search ranks by score before reading the
// events' rows (no filter on their columns) or reads every row (a kind
// filter); both give the same hits when the filter keeps everything, and
// a tie that straddles the limit is cut by time too.
func TestSearchMemoryTiesAtTheCut(t *testing.T) {
	contents := make([]string, 40)
	for i := range contents {
		contents[i] = fmt.Sprintf("unrelated note number %d", i+1)
		if i%4 == 0 {
			contents[i] = "alpha beta gamma" // ten events, one score
		}
	}
	contents[20] = "alpha beta gamma alpha" // the best score
	env := chainFile(t, contents)
	env.MustCall(t, domain.ToolCheckpoint, map[string]any{"summary": "alpha beta gamma"}) // ties, newest of all
	for _, limit := range []int{1, 2, 3, 5, 11, 12} {
		plain := env.MustCall(t, domain.ToolSearchMemory, map[string]any{"query": "alpha", "limit": limit})
		filtered := env.MustCall(t, domain.ToolSearchMemory, map[string]any{"query": "alpha", "limit": limit, "kinds": []string{domain.DefaultKind, "checkpoint"}})
		refs, _ := memHits(t, plain)
		frefs, _ := memHits(t, filtered)
		assert.Equal(t, refs, frefs, "limit %d", limit)
		want := []string{"event:21", "checkpoint:1", "event:37", "event:33", "event:29", "event:25", "event:17", "event:13", "event:9", "event:5", "event:1"}
		assert.Equal(t, want[:min(limit, len(want))], refs, "limit %d: %s", limit, plain)
		assert.Equal(t, limit < len(want), strings.Contains(plain, "more rows"), "limit %d: the trailer says whether more matched: %s", limit, plain)
	}
}
