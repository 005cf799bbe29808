package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// auditStore opens a store on a new file and returns it with its path.
func auditStore(t *testing.T) (*testDB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.db")
	s, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 2 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, path
}

func auditEntry(tool, query string) domain.AuditEntry {
	return domain.AuditEntry{TS: memTS, Session: memSession, Tool: tool, Query: &query, OK: true}
}

// auditCount counts query_log rows whose query is q, on a connection of
// its own.
func auditCount(t *testing.T, path, q string) int {
	t.Helper()
	var n int
	require.NoError(t, rawOpen(t, path).QueryRow("SELECT count(*) FROM query_log WHERE query = ?", q).Scan(&n))
	return n
}

// auditLongWrite holds this store's write turn for about as long as ctx
// allows: a write statement that counts without end until interrupted.
const auditLongWrite = "INSERT INTO t WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

func TestRecordIsCommittedWhenItReturns(t *testing.T) {
	s, path := auditStore(t)
	require.NoError(t, s.Record(context.Background(), auditEntry("read_query", "SELECT 1 -- one")))
	assert.Equal(t, 1, auditCount(t, path, "SELECT 1 -- one"), "another connection sees the row once Record returns")
}

func TestOverlappingRecordsAreAllCommittedOnce(t *testing.T) {
	s, path := auditStore(t)
	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			assert.NoError(t, s.Record(context.Background(), auditEntry("read_query", fmt.Sprintf("SELECT %d -- overlap", i))))
		})
	}
	wg.Wait()
	var rows, distinct int
	require.NoError(t, rawOpen(t, path).QueryRow("SELECT count(*), count(DISTINCT query) FROM query_log WHERE query LIKE '% -- overlap'").Scan(&rows, &distinct))
	assert.Equal(t, n, rows)
	assert.Equal(t, n, distinct)
}

func TestWriteStoresItsRowInItsTransaction(t *testing.T) {
	s, path := auditStore(t)
	mustWrite(t, s, "CREATE TABLE t (k INTEGER PRIMARY KEY)")
	audit := func(q string) func(domain.WriteResult) domain.AuditEntry {
		return func(r domain.WriteResult) domain.AuditEntry {
			e := auditEntry("write_query", q)
			e.Rows = &r.RowsAffected
			return e
		}
	}
	ok := "INSERT INTO t VALUES (1), (2)"
	_, err := s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierWrite, SQL: ok, Audit: audit(ok)}, func([]string) {}, func([]any) bool { return true })
	require.NoError(t, err)
	var rows int64
	require.NoError(t, rawOpen(t, path).QueryRow("SELECT rows FROM query_log WHERE query = ?", ok).Scan(&rows))
	assert.Equal(t, int64(2), rows, "the row carries what the statement did")

	bad := "INSERT INTO t VALUES (3), (1)" // the second row violates the key: all rolls back
	_, err = s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierWrite, SQL: bad, Audit: audit(bad)}, func([]string) {}, func([]any) bool { return true })
	require.Error(t, err)
	assert.Zero(t, auditCount(t, path, bad), "a rolled-back write leaves no success row")

	guarded := "UPDATE t SET k = k + 10"
	_, err = s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierWrite, SQL: guarded, MaxUpdateRows: 1, Audit: audit(guarded)}, func([]string) {}, func([]any) bool { return true })
	require.ErrorIs(t, err, domain.ErrGuard)
	assert.Zero(t, auditCount(t, path, guarded), "a guarded write leaves no success row")
}

func TestMemoryAndViewWritesStoreTheirRows(t *testing.T) {
	s, path := auditStore(t)
	ctx := context.Background()
	e, err := s.Append(ctx, func(id int64, hash string) (domain.Event, error) {
		return domain.NewEvent(id, hash, memTS, memSession, "note", "audited")
	}, func(e domain.Event) domain.AuditEntry {
		return auditEntry("append_event", fmt.Sprintf("event %d", e.ID))
	})
	require.NoError(t, err)
	assert.Equal(t, 1, auditCount(t, path, fmt.Sprintf("event %d", e.ID)))
	c, err := s.Checkpoint(ctx, func(id int64, hash string) (domain.Checkpoint, error) {
		return domain.NewCheckpoint(id, hash, memTS, memSession, "audited")
	}, func(c domain.Checkpoint) domain.AuditEntry {
		return auditEntry("checkpoint", fmt.Sprintf("checkpoint %d", c.ID))
	})
	require.NoError(t, err)
	assert.Positive(t, c.ID)
	assert.Equal(t, 1, auditCount(t, path, fmt.Sprintf("checkpoint %d", c.ID)), "the row sees the stored checkpoint's id")
	require.NoError(t, s.ReplaceView(ctx, domain.View{Name: "v", Body: "SELECT 1"}, false, func(name string) domain.AuditEntry { return auditEntry("create_view", "view "+name) }))
	assert.Equal(t, 1, auditCount(t, path, "view v"))
	// A failing view leaves neither the view nor a success row.
	err = s.ReplaceView(ctx, domain.View{Name: "w", Body: "SELEC 1"}, false, func(name string) domain.AuditEntry { return auditEntry("create_view", "view "+name) })
	require.Error(t, err)
	assert.Zero(t, auditCount(t, path, "view w"))
}

// TestWritesOfOneStoreQueue: while a long write holds the store's write
// turn, another write waits in line; when its deadline passes there, it
// says so, names --query-timeout, and does not blame another program.
// A row waiting behind it is withdrawn and not written later.
func TestWritesOfOneStoreQueue(t *testing.T) {
	s, path := auditStore(t)
	mustWrite(t, s, "CREATE TABLE t (n INTEGER)")
	long, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Write(long, domain.WriteRequest{Tier: domain.TierWrite, SQL: auditLongWrite}, func([]string) {}, func([]any) bool { return true })
		done <- err
	}()
	// The long write holds the turn once another connection cannot write.
	probe := rawOpen(t, path)
	require.Eventually(t, func() bool {
		_, err := probe.Exec("PRAGMA busy_timeout = 0; INSERT INTO t VALUES (-1); DELETE FROM t WHERE n = -1")
		return err != nil
	}, slack.Of(5*time.Second), 5*time.Millisecond)

	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	_, err := s.Write(short, domain.WriteRequest{Tier: domain.TierWrite, SQL: "INSERT INTO t VALUES (1)"}, func([]string) {}, func([]any) bool { return true })
	require.ErrorIs(t, err, domain.ErrTimeout)
	assert.Contains(t, err.Error(), "an earlier write of this server")
	assert.Contains(t, err.Error(), "--query-timeout")
	assert.NotContains(t, err.Error(), "another program")

	short3, cancel3 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel3()
	err = s.Record(short3, auditEntry("read_query", "SELECT 1 -- withdrawn"))
	require.ErrorIs(t, err, domain.ErrTimeout)
	assert.NotContains(t, err.Error(), "another program")

	// A write with time to wait gets its turn once the long one ends.
	ok, cancel4 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel4()
	_, err = s.Write(ok, domain.WriteRequest{Tier: domain.TierWrite, SQL: "INSERT INTO t VALUES (2)"}, func([]string) {}, func([]any) bool { return true })
	require.NoError(t, err)
	require.ErrorIs(t, <-done, domain.ErrTimeout, "the long write ends by its deadline")
	require.NoError(t, s.Record(context.Background(), auditEntry("read_query", "SELECT 1 -- after")))
	assert.Zero(t, auditCount(t, path, "SELECT 1 -- withdrawn"), "a withdrawn row is never written")
	assert.Equal(t, 1, auditCount(t, path, "SELECT 1 -- after"))
}

// TestRecordBlamesAnotherProgramOnlyForItsLock: a row that cannot get the
// lock another connection holds says so.
func TestRecordBlamesAnotherProgramOnlyForItsLock(t *testing.T) {
	s, path := auditStore(t)
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	err = s.Record(ctx, auditEntry("read_query", "SELECT 1 -- locked"))
	require.ErrorIs(t, err, domain.ErrBusy)
	assert.Contains(t, err.Error(), "locked by another program")
	_, err = conn.ExecContext(context.Background(), "ROLLBACK")
	require.NoError(t, err)
	assert.Zero(t, auditCount(t, path, "SELECT 1 -- locked"))
	require.NoError(t, s.Record(context.Background(), auditEntry("read_query", "SELECT 1 -- unlocked")))
	assert.Equal(t, 1, auditCount(t, path, "SELECT 1 -- unlocked"))
}

// TestRecordWaitsOutAnotherProgramsLock: the committer waits for another
// program's write lock in its own short steps (SQLite's busy handler is
// off on its connection), so a row and the batch queued behind it commit
// once that lock is released, within their deadline.
func TestRecordWaitsOutAnotherProgramsLock(t *testing.T) {
	s, path := auditStore(t)
	require.NoError(t, s.Record(context.Background(), auditEntry("read_query", "SELECT 1 -- warm")))
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	require.NoError(t, err)
	const n = 4
	done := make(chan error, n)
	for i := range n {
		go func() {
			done <- s.Record(context.Background(), auditEntry("read_query", fmt.Sprintf("SELECT %d -- waited", i)))
		}()
	}
	select {
	case err := <-done:
		t.Fatalf("Record returned while another program held the write lock, long before its 5 s budget: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	_, err = conn.ExecContext(context.Background(), "ROLLBACK")
	require.NoError(t, err)
	for range n {
		assert.NoError(t, <-done)
	}
	var rows int
	require.NoError(t, rawOpen(t, path).QueryRow("SELECT count(*) FROM query_log WHERE query LIKE '% -- waited'").Scan(&rows))
	assert.Equal(t, n, rows)
}
