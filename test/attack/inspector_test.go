package attack_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestInspectorSeesEveryChange proves the invariant checks can fail: each
// kind of change a broken policy could let through shows in the snapshot,
// including after the inspector's shortcuts (the shared first dump and the
// data_version fast path).
func TestInspectorSeesEveryChange(t *testing.T) {
	env := fresh(t)
	in := inspect(t, env)
	before := in.snapshot(t)
	assert.Equal(t, before, in.snapshot(t), "nothing happened, nothing changed")

	destroy := func(q string) {
		t.Helper()
		_, err := env.Statements.Write(context.Background(), domain.WriteRequest{Tier: domain.TierDestructive, SQL: q}, func([]string) {}, func([]any) bool { return true })
		require.NoError(t, err, q)
	}
	destroy("UPDATE kv SET v = 2.5000000000000004 WHERE k = 'c'")
	after := in.snapshot(t)
	assert.NotEqual(t, before.Tables["kv"], after.Tables["kv"], "a real changed in its last bit")

	destroy("UPDATE notes SET body = 'a' || char(0) || 'b' WHERE id = 3")
	next := in.snapshot(t)
	assert.NotEqual(t, after.Tables["notes"], next.Tables["notes"], "a text with a NUL byte")

	destroy("UPDATE docs SET body = 'changed' WHERE rowid = 1")
	last := in.snapshot(t)
	assert.NotEqual(t, next.Tables["docs_content"], last.Tables["docs_content"], "a shadow table")

	raw, err := sql.Open("sqlite", "file:"+env.DBPath)
	require.NoError(t, err)
	defer raw.Close()
	_, err = raw.Exec("PRAGMA user_version = 99")
	require.NoError(t, err)
	header := in.snapshot(t)
	assert.NotEqual(t, last.Header, header.Header, "the file header")

	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "evil.db"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(env.outside, "evil.db"), nil, 0o644))
	files := in.snapshot(t)
	assert.Contains(t, files.Files, "evil.db", "a file next to the database")
	assert.Equal(t, []string{"evil.db"}, files.Outside, "a file elsewhere")
}
