package readonly_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/memory"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// folderName has the characters a file: URI must escape; error texts must
// never show it.
const folderName = "shop data #2 (100%) ?ro"

// fileState is everything a session could change about a database file.
type fileState struct {
	Sum   [32]byte
	MTime time.Time
	Mode  fs.FileMode
	Files []string // every name in the file's folder
}

func stateOf(t testing.TB, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	ents, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	st := fileState{Sum: sha256.Sum256(b), MTime: fi.ModTime(), Mode: fi.Mode()}
	for _, e := range ents {
		st.Files = append(st.Files, e.Name())
	}
	return st
}

// shopFixture is one kind of shop file a read-only session may meet.
type shopFixture struct {
	name   string
	memory bool // the server's tables are in it
	make   func(t testing.TB, path string, s shop)
}

var shopFixtures = []shopFixture{
	{"rollback-journal shop", false, func(t testing.TB, path string, s shop) { mustWriteShop(t, path, "delete", s) }},
	{"WAL shop with the server's tables", true, mustServerShop},
}

// mustServerShop makes a file the server has used: WAL mode, its tables, a
// short memory chain and a checkpoint, plus the shop.
func mustServerShop(t testing.TB, path string, s shop) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, path, sqlite.Options{})
	require.NoError(t, err)
	mem := memory.New(store)
	for i, content := range []string{"loaded the shop", "revenue is in orders.total_amount"} {
		_, err := mem.Append(ctx, func(id int64, hash string) (domain.Event, error) {
			return domain.NewEvent(id, hash, fmt.Sprintf("2026-09-13T10:11:1%dZ", i), "20260913T101100Z-seed", "note", content)
		}, nil)
		require.NoError(t, err)
	}
	_, err = mem.Checkpoint(ctx, func(id int64, hash string) (domain.Checkpoint, error) {
		return domain.NewCheckpoint(id, hash, "2026-09-13T10:11:13Z", "20260913T101100Z-seed", "shop explored")
	}, nil)
	require.NoError(t, err)
	require.NoError(t, store.Close())
	mustWriteShop(t, path, "wal", s)
	_, err = os.Stat(path + "-wal")
	require.ErrorIs(t, err, fs.ErrNotExist, "every connection closed cleanly")
}

// session is a read-only server on one shop file and a client connected to
// it over the SDK's in-memory transports.
type session struct {
	*harness.Env
	dir    string
	before fileState
}

// openSession makes the fixture's file in a fresh folder and starts a
// read-only server on it.
func openSession(t *testing.T, fx shopFixture, s shop) *session {
	t.Helper()
	dir := filepath.Join(t.TempDir(), folderName)
	path := filepath.Join(dir, "shop.db")
	fx.make(t, path, s)
	before := stateOf(t, path)
	env := harness.New(t, harness.Config{DBPath: path, ReadOnly: true})
	return &session{Env: env, dir: dir, before: before}
}

// closeAndCheck ends the session's use of the file and checks it is exactly
// as it was before the server opened it.
func (s *session) closeAndCheck(t *testing.T) {
	t.Helper()
	require.NoError(t, s.Store.Close())
	assert.Equal(t, s.before, stateOf(t, s.DBPath), "the file and its folder are exactly as before")
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
