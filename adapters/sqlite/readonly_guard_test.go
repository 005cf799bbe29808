package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// A cleanly closed WAL database is opened immutable in read-only mode; when
// a writer appears later, reads stop instead of mixing pages.
func TestReadOnlyRefusesOnceAWriterAppears(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	ctx := context.Background()
	rw, err := openTestDB(ctx, path, sqlite.Options{QueryTimeout: time.Second})
	require.NoError(t, err)
	_, err = rw.Write(ctx, domain.WriteRequest{Tier: domain.TierWrite, SQL: "CREATE TABLE t (a)"}, func([]string) {}, func([]any) bool { return true })
	require.NoError(t, err)
	require.NoError(t, rw.Close())
	require.NoFileExists(t, path+"-wal", "a clean close removes the WAL")

	ro, err := openTestDB(ctx, path, sqlite.Options{QueryTimeout: time.Second, ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { ro.Close() })
	read := func() error {
		return ro.Read(ctx, "SELECT count(*) FROM t", func([]string) {}, func([]any) bool { return true })
	}
	require.NoError(t, read())
	require.NoError(t, os.WriteFile(path+"-wal", nil, 0o644)) // a writer has opened the file
	assert.ErrorIs(t, read(), domain.ErrUnavailable)
}
