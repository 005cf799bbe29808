package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// TestFaultSnapshotFolderIsAFile points the snapshot folder at a regular
// file, through --snapshot-dir and by putting a file where the default
// folder goes. Decision: the server starts (every other tool works) and
// warns on stderr; destructive_query fails closed naming the setting, and
// snapshot fails too; nothing is deleted and the file is left as it was.
func TestFaultSnapshotFolderIsAFile(t *testing.T) {
	t.Parallel()
	content := []byte("a file that happens to sit where the snapshots would go\n")
	for _, tc := range []struct {
		name string
		file func(dir string) string // where the file goes
		flag bool                    // pass it as --snapshot-dir
	}{
		{"--snapshot-dir names a file", func(dir string) string { return filepath.Join(dir, "backups") }, true},
		{"default folder is a file", func(dir string) string { return filepath.Join(dir, "mem.snapshots") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newDB(t)
			file := tc.file(filepath.Dir(db))
			require.NoError(t, os.WriteFile(file, content, 0o644))
			var args []string
			if tc.flag {
				args = []string{"--snapshot-dir", file}
			}
			p := start(t, db, args...)
			cs := p.Session
			// stderr is copied from a pipe by a goroutine: the warning may
			// land a moment after the handshake.
			assert.Eventually(t, func() bool {
				return strings.Contains(p.Stderr.String(), "the snapshot folder is a file, not a folder")
			}, slack.Of(5*time.Second), 10*time.Millisecond, "startup warning; stderr: %s", p.Stderr)
			assert.Contains(t, p.Stderr.String(), "--snapshot-dir (MCP_SQLITE_SNAPSHOT_DIR)")

			mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
			mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('a'), ('b'), ('c')"})
			out := mustFail(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "cleanup"})
			assert.Contains(t, out, "is a file, not a folder")
			assert.Contains(t, out, "the statement was not run")
			assert.Contains(t, out, "--snapshot-dir")
			out = mustFail(t, cs, "snapshot", map[string]any{"reason": "by hand"})
			assert.Contains(t, out, "is a file, not a folder")

			assert.Equal(t, 3, count(t, mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM notes"})), "nothing deleted")
			mustCall(t, cs, "append_event", map[string]any{"content": "still remembering"})
			mustCall(t, cs, "checkpoint", map[string]any{"summary": "still working"})
			assert.True(t, verifyChain(t, cs).OK)
			mustCall(t, cs, "list_tables", nil)
			got, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, content, got, "the file is left untouched")
		})
	}
}
