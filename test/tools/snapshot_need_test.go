package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapshotCount is how many snapshots the test database's folder holds.
func snapshotCount(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "test.snapshots"))
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		if snapshotName.MatchString(e.Name()) {
			n++
		}
	}
	return n
}

// A destructive_query statement that cannot change anything, or that a
// check refuses only once it runs, costs no snapshot: only a statement
// that passed every check and can change the database rotates the others
// out.
func TestDestructiveQuerySnapshotsOnlyWhatCanChange(t *testing.T) {
	env := seeded(t)
	for _, q := range []string{
		"SELECT count(*) FROM notes",
		"WITH x AS (SELECT 1) SELECT * FROM x",
	} {
		out := env.MustCall(t, "destructive_query", map[string]any{"query": q, "reason": "look"})
		assert.Contains(t, out, "no snapshot", q)
	}
	for _, q := range []string{
		"SELECT * FROM pragma_database_list",
		"DELETE FROM notes WHERE title IN (SELECT file FROM pragma_database_list)",
		"DELETE FROM notes WHERE id = (SELECT count(*) FROM pragma_database_list)",
	} {
		assert.Contains(t, env.MustFail(t, "destructive_query", map[string]any{"query": q, "reason": "look"}), "database_list", q)
	}
	assert.Equal(t, 0, snapshotCount(t, env.Dir), "no statement above could change anything")
	env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "remove one"})
	assert.Equal(t, 1, snapshotCount(t, env.Dir))
}
