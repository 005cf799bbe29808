package main

import (
	"errors"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplainOpenSaysWhatIsWrong: SQLite says only "unable to open database
// file (14)"; the line printed says what is wrong with the path and names
// the setting as the user gave it.
func TestExplainOpenSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	sqliteErr := errors.New("x is not a usable SQLite database: unable to open database file (14)")
	for _, c := range []struct {
		name     string
		cfg      settings.Config
		flagName string
		want     []string
	}{
		{"a folder", settings.Config{DBPath: dir}, "--db", []string{"--db names a folder (" + filepath.Base(dir) + ")", filepath.Join(filepath.Base(dir), "memory.db")}},
		{"a folder, env", settings.Config{DBPath: dir}, settings.EnvDB, []string{settings.EnvDB + " names a folder"}},
		{"a folder, one dash", settings.Config{DBPath: dir}, "-db", []string{"-db names a folder"}},
		{"a file as folder", settings.Config{DBPath: filepath.Join(file, "x.db")}, "--db", []string{"--db x.db: its folder plain is a file, not a folder"}},
		{"a file deeper as folder", settings.Config{DBPath: filepath.Join(file, "a", "x.db")}, "--db", []string{"its folder plain is a file"}},
	} {
		got := explainOpen(c.cfg, c.flagName, sqliteErr)
		for _, w := range c.want {
			assert.Contains(t, got.Error(), w, c.name)
		}
		assert.NotContains(t, got.Error(), "(14)", c.name)
		assert.NotContains(t, got.Error(), filepath.Dir(dir), "%s: names files, not the folders above them", c.name)
	}
	// In read-only mode the adapter's own explanation stays.
	assert.Equal(t, sqliteErr, explainOpen(settings.Config{DBPath: dir, ReadOnly: true}, "--db", sqliteErr))
	// Nothing wrong with the path: SQLite's own message stays.
	ok := filepath.Join(dir, "fine.db")
	require.NoError(t, os.WriteFile(ok, nil, 0o600))
	assert.Equal(t, sqliteErr, explainOpen(settings.Config{DBPath: ok}, "--db", sqliteErr))
}
