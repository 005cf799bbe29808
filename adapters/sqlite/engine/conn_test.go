package engine

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// QueryOnly reads the switch "PRAGMA query_only" reports, as it changes.
func TestQueryOnlyMatchesThePragma(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "qo.db"))
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.Raw(func(dc any) error {
		h, err := Open(dc)
		require.NoError(t, err)
		pragma := func() bool {
			st, _, err := h.Prepare("PRAGMA query_only")
			require.NoError(t, err)
			defer st.Finalize()
			more, err := st.Step()
			require.NoError(t, err)
			require.True(t, more)
			return st.Int64(0) == 1
		}
		for _, set := range []string{"", "PRAGMA query_only = 1", "PRAGMA query_only = 0", "PRAGMA query_only = ON"} {
			if set != "" {
				require.NoError(t, h.Exec(set))
			}
			assert.Equal(t, pragma(), h.QueryOnly(), "after %q", set)
		}
		assert.True(t, h.QueryOnly())
		return nil
	}))
}
