package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The store-level memory tests. The tamper tests act as an attacker with
// access to the file: they open it through a raw database/sql connection
// (the modernc driver, registered by importing package sqlite), drop the
// append-only triggers and edit rows directly. The chain is tamper-evident,
// not tamper-proof: every such edit must show up as a break with the right
// id and reason, or as a checkpoint that no longer matches.

const (
	memTS      = "2026-09-13T10:11:12Z"
	memSession = "20260913T101100Z-3fa9"
)

// The break reasons, word for word as docs/decisions.md#hash-chain words them.
const (
	reasonHash = "stored hash does not match the recomputed hash (content or metadata was altered)"
	reasonPrev = "prev_hash does not match the hash of event %d"
	reasonGap  = "id gap: expected event %d, found %d (rows were deleted or renumbered)"
)

// mustOpenMemory opens a fresh store and returns it with its file path.
func mustOpenMemory(t *testing.T) (*testDB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.db")
	s, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, path
}

// mustAppend appends one event built by domain.NewEvent.
func mustAppend(t *testing.T, s *testDB, kind, content string) domain.Event {
	t.Helper()
	e, err := s.Append(context.Background(), func(id int64, hash string) (domain.Event, error) {
		return domain.NewEvent(id, hash, memTS, memSession, kind, content)
	}, nil)
	require.NoError(t, err)
	return e
}

// mustAppendN appends n notes "event 1" ... "event n" and returns them.
func mustAppendN(t *testing.T, s *testDB, n int) []domain.Event {
	t.Helper()
	out := make([]domain.Event, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, mustAppend(t, s, "note", fmt.Sprintf("event %d", i)))
	}
	return out
}

// mustCheckpoint writes a checkpoint at the current head.
func mustCheckpoint(t *testing.T, s *testDB, summary string) domain.Checkpoint {
	t.Helper()
	c, err := s.Checkpoint(context.Background(), func(id int64, hash string) (domain.Checkpoint, error) {
		return domain.NewCheckpoint(id, hash, memTS, memSession, summary)
	}, nil)
	require.NoError(t, err)
	return c
}

// verifyStore walks the store's chain the way verify_chain does.
func verifyStore(t *testing.T, s *testDB) domain.VerifyResult {
	t.Helper()
	v := domain.NewChainVerifier()
	n, err := s.Events(context.Background(), v.Checkpoint, v.Add)
	require.NoError(t, err)
	return v.Result(n)
}

// rawOpen opens the file the way an attacker with file access would: a plain
// connection with no policy, no authorizer and no defensive mode.
func rawOpen(t *testing.T, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// tamper drops the append-only triggers and runs the attacker's statements.
func tamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db := rawOpen(t, path)
	for _, q := range append([]string{
		"DROP TRIGGER IF EXISTS memory_events_no_update",
		"DROP TRIGGER IF EXISTS memory_events_no_delete",
		"DROP TRIGGER IF EXISTS memory_checkpoints_no_update",
		"DROP TRIGGER IF EXISTS memory_checkpoints_no_delete",
	}, stmts...) {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

func TestAppendBuildsOneLinearChain(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	events := mustAppendN(t, s, 3)
	assert.Equal(t, domain.VerifyResult{OK: true, Events: 3, HeadID: 3, HeadHash: events[2].Hash}, verifyStore(t, s))
	for i, e := range events {
		assert.Equal(t, int64(i+1), e.ID)
		assert.Equal(t, e.ComputeHash(), e.Hash)
	}
	assert.Equal(t, domain.Genesis, events[0].PrevHash)
	assert.Equal(t, events[0].Hash, events[1].PrevHash)
	assert.Equal(t, events[1].Hash, events[2].PrevHash)

	var read []domain.Event
	_, err := s.Events(context.Background(), nil, func(e domain.Event) bool { read = append(read, e); return true })
	require.NoError(t, err)
	assert.Equal(t, events, read, "rows read back equal the events appended, field for field")
}

func TestEmptyChainVerifies(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	assert.Equal(t, domain.VerifyResult{OK: true, HeadHash: domain.Genesis}, verifyStore(t, s))
}

func TestEventsCountsEveryRowAfterTheWalkStops(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	mustAppendN(t, s, 5)
	calls := 0
	n, err := s.Events(context.Background(), nil, func(domain.Event) bool { calls++; return calls < 2 })
	require.NoError(t, err)
	assert.Equal(t, int64(5), n)
	assert.Equal(t, 2, calls)
}

func TestAppendFailureStoresNothing(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	first := mustAppend(t, s, "note", "first")
	ctx := context.Background()

	_, err := s.Append(ctx, func(id int64, hash string) (domain.Event, error) {
		return domain.NewEvent(id, hash, memTS, memSession, "note", " \t\n")
	}, nil)
	require.ErrorIs(t, err, domain.ErrInvalidArgument, "the builder's domain error comes back unchanged")

	_, err = s.Append(ctx, func(id int64, hash string) (domain.Event, error) {
		e, err := domain.NewEvent(id, hash, memTS, memSession, "note", "second")
		e.Hash = first.Hash // violates UNIQUE(hash): the insert itself fails
		return e, err
	}, nil)
	require.ErrorIs(t, err, domain.ErrSQLite)

	assert.Equal(t, domain.VerifyResult{OK: true, Events: 1, HeadID: 1, HeadHash: first.Hash}, verifyStore(t, s))
	second := mustAppend(t, s, "note", "second")
	assert.Equal(t, int64(2), second.ID, "the failed appends left no transaction open")
}

func TestCheckpointRecordsTheHead(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	empty := mustCheckpoint(t, s, "  nothing yet \n")
	st, err := s.Resume(context.Background(), 10, nil)
	require.NoError(t, err)
	assert.Equal(t, domain.ResumeState{Checkpoint: &empty, Anchored: true, Coverage: domain.Sealed}, st, "a checkpoint on the empty chain is anchored to the marker, event 1, and sealed by event 2")
	events := mustAppendN(t, s, 2)
	second := mustCheckpoint(t, s, "two in")
	var marker domain.Event
	_, err = s.Events(context.Background(), nil, func(e domain.Event) bool { marker = e; return false })
	require.NoError(t, err)
	assert.True(t, domain.IsSealMarker(marker))
	assert.Equal(t, domain.Checkpoint{ID: 1, TS: memTS, Session: memSession, Summary: "nothing yet", LastEventID: 1, HeadHash: marker.Hash}, empty)
	assert.Equal(t, domain.Checkpoint{ID: 2, TS: memTS, Session: memSession, Summary: "two in", LastEventID: events[1].ID, HeadHash: events[1].Hash}, second,
		"the second is anchored to the head, no marker: the first was sealed")
	assert.Equal(t, int64(4), events[1].ID, "events 1 and 2 are the marker and the first checkpoint's seal")

	_, err = s.Checkpoint(context.Background(), func(id int64, hash string) (domain.Checkpoint, error) {
		return domain.NewCheckpoint(id, hash, memTS, memSession, "\u2028 ")
	}, nil)
	require.ErrorIs(t, err, domain.ErrInvalidArgument)
}

func TestResumeLoadsTheMostRecentEventsAfterTheCheckpoint(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	ctx := context.Background()

	st, err := s.Resume(ctx, 10, nil)
	require.NoError(t, err)
	assert.Equal(t, domain.ResumeState{}, st, "empty database")

	mustAppend(t, s, "note", "one")
	cp := mustCheckpoint(t, s, "after one")
	e2 := mustAppend(t, s, "debug", "two")
	e3 := mustAppend(t, s, "decision", "three")
	e4 := mustAppend(t, s, "note", "four")

	cases := []struct {
		name    string
		max     int
		exclude []string
		events  []domain.Event
		total   int
	}{
		{"all after the checkpoint", 10, nil, []domain.Event{e2, e3, e4}, 3},
		{"the most recent max, oldest first", 2, nil, []domain.Event{e3, e4}, 3},
		{"excluded kinds are neither loaded nor counted", 10, []string{"debug", "note"}, []domain.Event{e3}, 1},
		{"kinds match exactly, as SQLite compares text", 10, []string{"DEBUG"}, []domain.Event{e2, e3, e4}, 3},
		{"every kind excluded", 10, []string{"debug", "decision", "note"}, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, err := s.Resume(ctx, c.max, c.exclude)
			require.NoError(t, err)
			want := domain.ResumeState{Checkpoint: &cp, Anchored: true, Coverage: domain.Sealed, Events: c.events, Total: c.total}
			assert.Equal(t, want, st)
		})
	}
}

func TestConcurrentAppendsFromTwoStoresFormOneChain(t *testing.T) {
	t.Parallel()
	s1, path := mustOpenMemory(t)
	s2, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s2.Close() })

	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		s := s1
		if w%2 == 1 {
			s = s2
		}
		wg.Go(func() {
			for i := range each {
				_, err := s.Append(context.Background(), func(id int64, hash string) (domain.Event, error) {
					return domain.NewEvent(id, hash, memTS, memSession, "note", fmt.Sprintf("writer %d event %d", w, i))
				}, nil)
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	r := verifyStore(t, s2)
	assert.True(t, r.OK, r.JSON())
	assert.Equal(t, int64(writers*each), r.Events)
	assert.Equal(t, int64(writers*each), r.HeadID, "every acknowledged event is in the chain, ids 1..N")
}

func TestTamperedFileBreaksTheChain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		stmts   []string
		events  int64
		headID  int64
		breakAt int64
		reason  string
	}{
		{"altered content", []string{"UPDATE memory_events SET content = 'forged' WHERE id = 3"}, 5, 2, 3, reasonHash},
		{"altered kind", []string{"UPDATE memory_events SET kind = 'decision' WHERE id = 4"}, 5, 3, 4, reasonHash},
		{"altered ts", []string{"UPDATE memory_events SET ts = '2026-01-01T00:00:00Z' WHERE id = 1"}, 5, 0, 1, reasonHash},
		{"altered session", []string{"UPDATE memory_events SET session = 'someone-else' WHERE id = 5"}, 5, 4, 5, reasonHash},
		{"altered hash", []string{"UPDATE memory_events SET hash = upper(hash) WHERE id = 2"}, 5, 1, 2, reasonHash},
		{"altered prev_hash", []string{"UPDATE memory_events SET prev_hash = '" + domain.Genesis + "' WHERE id = 3"}, 5, 2, 3, fmt.Sprintf(reasonPrev, 2)},
		{"deleted row", []string{"DELETE FROM memory_events WHERE id = 3"}, 4, 2, 4, fmt.Sprintf(reasonGap, 3, 4)},
		{"deleted first row", []string{"DELETE FROM memory_events WHERE id = 1"}, 4, 0, 2, fmt.Sprintf(reasonGap, 1, 2)},
		{"renumbered ids", []string{"UPDATE memory_events SET id = id + 100 WHERE id >= 3"}, 5, 2, 103, fmt.Sprintf(reasonGap, 3, 103)},
		{"deleted and renumbered to close the gap", []string{
			"DELETE FROM memory_events WHERE id = 3",
			"UPDATE memory_events SET id = id - 1 WHERE id > 3",
		}, 4, 2, 3, fmt.Sprintf(reasonPrev, 2)},
		{"forged row inserted in the middle", []string{
			"UPDATE memory_events SET id = id + 100 WHERE id >= 3", // two steps: no PRIMARY KEY clash midway
			"UPDATE memory_events SET id = id - 99 WHERE id >= 100",
			"INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) " +
				"SELECT 3, ts, session, kind, 'forged', hash, 'deadbeef' FROM memory_events WHERE id = 2",
		}, 6, 2, 3, reasonHash},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path := mustOpenMemory(t)
			events := mustAppendN(t, s, 5)
			tamper(t, path, c.stmts...)
			headHash := domain.Genesis
			if c.headID > 0 {
				headHash = events[c.headID-1].Hash
			}
			want := domain.VerifyResult{Events: c.events, HeadID: c.headID, HeadHash: headHash, BreakAt: c.breakAt, Reason: c.reason}
			assert.Equal(t, want, verifyStore(t, s))
		})
	}
}

// TestTamperingTheAnchorIsCaughtByTheCheckpoint covers edits that leave a
// consistent chain behind: only the checkpoint, anchored to the head hash it
// saw and sealed by the event after it, can tell. An attacker who rewrites
// the checkpoint and its seal too goes unnoticed (only a head hash kept
// elsewhere can tell); that is what tamper-evident, not tamper-proof, means.
func TestTamperingTheAnchorIsCaughtByTheCheckpoint(t *testing.T) {
	t.Parallel()
	// The attacker knows the rule: rebuild every event from `from` on,
	// the checkpoint's seal included when reseal is set.
	rehashFrom := func(t *testing.T, path string, events []domain.Event, cp domain.Checkpoint, from int64, content string, reseal bool) {
		t.Helper()
		var stmts []string
		headID, headHash := from-1, events[from-2].Hash
		for _, e := range events[from-1:] {
			c := e.Content
			if e.ID == from {
				c = content
			}
			if reseal && domain.IsSealOf(e, cp.ID) {
				moved := cp
				moved.HeadHash = headHash
				c = moved.SealContent()
				stmts = append(stmts, "UPDATE memory_checkpoints SET head_hash = '"+headHash+"'")
			}
			ne, err := domain.NewEvent(headID, headHash, e.TS, e.Session, e.Kind, c)
			require.NoError(t, err)
			stmts = append(stmts, fmt.Sprintf("UPDATE memory_events SET content = '%s', prev_hash = '%s', hash = '%s' WHERE id = %d",
				ne.Content, ne.PrevHash, ne.Hash, ne.ID))
			headID, headHash = ne.ID, ne.Hash
		}
		tamper(t, path, stmts...)
	}
	cases := []struct {
		name     string
		edit     func(t *testing.T, path string, events []domain.Event, cp domain.Checkpoint)
		anchored bool
		chainOK  bool
		says     string
	}{
		{"untouched", func(*testing.T, string, []domain.Event, domain.Checkpoint) {}, true, true, ""},
		{"chain rewritten with valid hashes", func(t *testing.T, path string, events []domain.Event, cp domain.Checkpoint) {
			rehashFrom(t, path, events, cp, 2, "forged", false)
		}, false, false, "no longer has the hash it recorded"},
		{"newest events deleted, the anchor with them", func(t *testing.T, path string, _ []domain.Event, _ domain.Checkpoint) {
			tamper(t, path, "DELETE FROM memory_events WHERE id >= 4")
		}, false, false, "past the chain's last event"},
		{"checkpoint head_hash altered", func(t *testing.T, path string, _ []domain.Event, _ domain.Checkpoint) {
			tamper(t, path, "UPDATE memory_checkpoints SET head_hash = '"+domain.Genesis+"'")
		}, false, false, "no longer has the hash it recorded"},
		{"chain and checkpoint rewritten, the seal not", func(t *testing.T, path string, events []domain.Event, cp domain.Checkpoint) {
			rehashFrom(t, path, events, cp, 2, "forged", false)
			tamper(t, path, "UPDATE memory_checkpoints SET head_hash = (SELECT hash FROM memory_events WHERE id = 4)")
		}, true, false, "does not match its seal"},
		{"chain, checkpoint and seal rewritten together go unnoticed", func(t *testing.T, path string, events []domain.Event, cp domain.Checkpoint) {
			rehashFrom(t, path, events, cp, 2, "forged", true)
		}, true, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path := mustOpenMemory(t)
			mustAppendN(t, s, 3)
			cp := mustCheckpoint(t, s, "three in") // anchored to the marker, event 4; sealed by event 5
			mustAppend(t, s, "note", "event 6")
			var events []domain.Event
			_, err := s.Events(context.Background(), nil, func(e domain.Event) bool { events = append(events, e); return true })
			require.NoError(t, err)
			require.Len(t, events, 6)
			c.edit(t, path, events, cp)

			r := verifyStore(t, s)
			assert.Equal(t, c.chainOK, r.OK, r.JSON())
			assert.Contains(t, r.Reason, c.says)
			st, err := s.Resume(context.Background(), 10, nil)
			require.NoError(t, err)
			require.NotNil(t, st.Checkpoint)
			assert.Equal(t, c.anchored, st.Anchored)
		})
	}
}
