package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
)

// TestServerObjectsMatchUpToWhitespace: a file whose server objects were
// created from the same definitions laid out otherwise (another tool's
// formatting, an earlier server) opens; a changed word does not.
func TestServerObjectsMatchUpToWhitespace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	s, err := openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	var ddl string
	require.NoError(t, db.QueryRow("SELECT sql FROM sqlite_schema WHERE name = 'query_log_no_delete'").Scan(&ddl))
	_, err = db.Exec("DROP TRIGGER query_log_no_delete")
	require.NoError(t, err)
	_, err = db.Exec(strings.Join(strings.Fields(ddl), "\n  "))
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err = openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: time.Second})
	require.NoError(t, err, "whitespace is not a difference")
	require.NoError(t, s.Close())

	db, err = sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec("DROP TRIGGER query_log_no_delete")
	require.NoError(t, err)
	_, err = db.Exec(strings.Replace(ddl, "append-only", "append only", 1))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: time.Second})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "query_log_no_delete")
	assert.NotContains(t, err.Error(), filepath.Dir(path), "the message names the file, not its folder")

	s, err = openTestDB(context.Background(), path, sqlite.Options{QueryTimeout: time.Second, RepairServerObjects: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"trigger 'query_log_no_delete'"}, s.Repaired())
	require.NoError(t, s.Close())
}
