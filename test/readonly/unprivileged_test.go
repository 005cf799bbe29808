//go:build unix

package readonly_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// unprivileged returns a command running the binary with args as a user
// the permission bits bind (see [e2e.Unprivileged]): a read-only folder or
// file then really is read-only for the server.
func unprivileged(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := e2e.Command(bin, args...)
	e2e.Unprivileged(t, cmd, dir)
	return cmd
}

// lockDown removes write permission from dir (and, with file set, from
// path) until the test ends.
func lockDown(t *testing.T, dir, path string, fileMode os.FileMode) {
	t.Helper()
	if fileMode != 0 {
		require.NoError(t, os.Chmod(path, fileMode))
	}
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
}

func TestBinaryReadsThroughPermissionBits(t *testing.T) {
	cases := []struct {
		name     string
		fileMode os.FileMode // 0 leaves the file as written (0644)
	}{
		{"WAL database in a folder without write permission", 0},
		{"read-only WAL file in a folder without write permission", 0o444},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), folderName)
			path := filepath.Join(dir, "shop.db")
			mustServerShop(t, path, newShop())
			cmd := unprivileged(t, dir, "--db", path, "--read-only")
			lockDown(t, dir, path, c.fileMode)
			before := stateOf(t, path)

			p := e2e.Start(t, cmd)
			out, isErr := harness.Call(t, p.Session, "read_query", map[string]any{"query": "SELECT count(*) FROM customers"})
			assert.False(t, isErr, out)
			assert.Equal(t, "count(*)\n150\n# 1 rows", out)
			out, isErr = harness.Call(t, p.Session, "verify_chain", nil)
			assert.False(t, isErr, out)
			require.NoError(t, p.Session.Close())
			assert.Equal(t, before, stateOf(t, path), "same bytes, time, mode and neighbours")
		})
	}
}

func TestBinarySaysWhyItCannotOpen(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(t *testing.T, dir, path string)
		want    []string
	}{
		{
			// The -wal file holds transactions, which SQLite could read
			// only through a -shm file it would create: refused before
			// SQLite opens anything, whatever the folder's permissions.
			name: "WAL database copied with transactions in -wal but without -shm, in a folder without write permission",
			prepare: func(t *testing.T, dir, path string) {
				live := filepath.Join(t.TempDir(), "live.db")
				linksLiveWriter(t, live)
				b, err := os.ReadFile(live + "-wal")
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path+"-wal", b, 0o644))
				lockDown(t, dir, path, 0)
			},
			want: []string{"cannot read shop.db in read-only mode", "shop.db-wal file holds transactions", "no shop.db-shm", "open the database once read-write"},
		},
		{
			name: "file the user may not read",
			prepare: func(t *testing.T, dir, path string) {
				require.NoError(t, os.Chmod(path, 0o200))
				lockDown(t, dir, path, 0)
			},
			want: []string{"cannot read shop.db", "permission denied"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), folderName)
			path := filepath.Join(dir, "shop.db")
			mustServerShop(t, path, newShop())
			cmd := unprivileged(t, dir, "--db", path, "--read-only")
			before := stateOf(t, path)
			c.prepare(t, dir, path)
			assertRefused(t, runToExit(t, cmd), dir, c.want...)
			// Undo what prepare did (the test may not read the file as it
			// left it); anything else would be the server's doing.
			require.NoError(t, os.Chmod(dir, 0o755))
			require.NoError(t, os.Chmod(path, 0o644))
			_ = os.Remove(path + "-wal")
			_ = os.Remove(path + "-shm")
			assert.Equal(t, before, stateOf(t, path), "a refused start changes nothing")
		})
	}
}

// A WAL database copied with its -wal (holding transactions) and -shm
// files, all read-only in a read-only folder: SQLite reads the -wal through
// the -shm file it may not write (its support for read-only media), so
// every committed row is seen and no file changes.
func TestBinaryReadsAWALCopyWithReadOnlyFiles(t *testing.T) {
	live := filepath.Join(t.TempDir(), "live.db")
	linksLiveWriter(t, live)
	dir := filepath.Join(t.TempDir(), folderName)
	path := linksCopy(t, live, dir, "-wal", "-shm")
	for _, suffix := range []string{"-wal", "-shm"} {
		require.NoError(t, os.Chmod(path+suffix, 0o444))
	}
	cmd := unprivileged(t, dir, "--db", path, "--read-only")
	lockDown(t, dir, path, 0o444)
	sums := map[string][32]byte{}
	for _, suffix := range []string{"-wal", "-shm"} {
		sums[suffix] = stateOf(t, path+suffix).Sum
	}
	before := stateOf(t, path)

	p := e2e.Start(t, cmd)
	out, isErr := harness.Call(t, p.Session, "read_query", map[string]any{"query": "SELECT count(*) FROM t"})
	assert.False(t, isErr, out)
	assert.Equal(t, "count(*)\n200\n# 1 rows", out, "the rows in the -wal file are read")
	require.NoError(t, p.Session.Close())
	assert.Equal(t, before, stateOf(t, path))
	for _, suffix := range []string{"-wal", "-shm"} {
		assert.Equal(t, sums[suffix], stateOf(t, path+suffix).Sum, suffix)
	}
}
