package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// The tests of the run of this process's own commits (verified.go): the
// store vouches for its own appends, checkpoints and audit rows since a
// mark, and for nothing else.

// tailIDs walks EventsAfter and returns the ids it saw.
func tailIDs(t *testing.T, s *testDB, mark ports.MemoryMark, after int64) (ids []int64, next ports.MemoryMark, ok bool) {
	t.Helper()
	next, ok, err := s.EventsAfter(context.Background(), mark, after, func(e domain.Event) bool {
		ids = append(ids, e.ID)
		return true
	})
	require.NoError(t, err)
	return ids, next, ok
}

func TestEventsAfterVouchesForThisProcessAppendsAndAuditRows(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	mustAppendN(t, s, 3)
	mark, ok := s.Mark()
	require.True(t, ok, "a WAL database's commit counter is readable")

	mustAppend(t, s, "note", "four")
	require.NoError(t, s.Record(context.Background(), auditEntry("read_query", "SELECT 1")))
	mustCheckpoint(t, s, "four in")
	mustAppend(t, s, "note", "after the checkpoint")

	ids, next, ok := tailIDs(t, s, mark, 3)
	require.True(t, ok, "only this store's own commits since the mark")
	assert.Equal(t, []int64{3, 4, 5, 6, 7}, ids, "the old head, then every event since (the seal included)")

	ids, _, ok = tailIDs(t, s, next, 7)
	assert.True(t, ok, "nothing committed since the last walk")
	assert.Equal(t, []int64{7}, ids)
}

func TestEventsAfterRefusesEveryOtherCommit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		commit func(t *testing.T, s *testDB, path string)
	}{
		{"an old event edited with the triggers dropped", func(t *testing.T, _ *testDB, path string) {
			tamper(t, path, "UPDATE memory_events SET content = 'forged' WHERE id = 1")
		}},
		{"another program's commit to another table", func(t *testing.T, _ *testDB, path string) {
			_, err := rawOpen(t, path).Exec("CREATE TABLE other (x); INSERT INTO other VALUES (1)")
			require.NoError(t, err)
		}},
		{"another server process's append", func(t *testing.T, _ *testDB, path string) {
			other, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: 5 * time.Second})
			require.NoError(t, err)
			defer other.Close()
			mustAppend(t, other, "note", "from the other process")
		}},
		{"this process's agent write", func(t *testing.T, s *testDB, _ string) {
			_, err := attackWrite(s, domain.TierWrite, "CREATE TABLE agent (x)", 0)
			require.NoError(t, err)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path := mustOpenMemory(t)
			mustAppendN(t, s, 3)
			mark, ok := s.Mark()
			require.True(t, ok)
			mustAppend(t, s, "note", "four")
			c.commit(t, s, path)
			mustAppend(t, s, "note", "five")

			ids, _, ok := tailIDs(t, s, mark, 3)
			assert.False(t, ok, "a commit this store did not make must send the caller back to the whole chain")
			assert.Empty(t, ids, "nothing is walked")
		})
	}
}

func TestEventsAfterRefusesAMarkFromBeforeTheLatest(t *testing.T) {
	t.Parallel()
	s, _ := mustOpenMemory(t)
	mustAppendN(t, s, 2)
	old, ok := s.Mark()
	require.True(t, ok)
	mustAppend(t, s, "note", "three")
	_, ok = s.Mark()
	require.True(t, ok)
	_, _, ok = tailIDs(t, s, old, 2)
	assert.False(t, ok, "the run starts at the latest mark; an older one cannot be vouched for")
	_, _, ok = tailIDs(t, s, ports.MemoryMark("forged"), 2)
	assert.False(t, ok)
}
