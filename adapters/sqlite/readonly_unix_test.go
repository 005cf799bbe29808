//go:build unix

package sqlite_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// A named pipe where the database should be is refused at once: opening it
// to read the header would wait for a writer forever.
func TestReadOnlyRefusesANamedPipe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), roFolder)
	path := filepath.Join(dir, "shop.db")
	mustRawDB(t, filepath.Join(dir, "other.db"), "delete") // makes the folder
	require.NoError(t, syscall.Mkfifo(path, 0o644))
	done := make(chan error, 1)
	go func() {
		_, err := openTestDB(context.Background(), path, sqlite.Options{ReadOnly: true})
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "shop.db is not a regular file (a named pipe)")
		assert.NotContains(t, err.Error(), dir)
	case <-time.After(slack.Of(10 * time.Second)):
		t.Fatal("opening a named pipe blocked")
	}
}
