package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func ls(t *testing.T, dir string) {
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		fi, _ := e.Info()
		t.Logf("  %s %d %v", e.Name(), fi.Size(), fi.ModTime())
	}
}

func TestScratchRO(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "x.db")
	s, err := sqlite.Open(ctx, p, sqlite.Options{})
	require.NoError(t, err)
	_, err = s.Write(ctx, domain.WriteRequest{Tier: domain.TierWrite, SQL: "CREATE TABLE t(a)"}, func([]string) {}, func([]any) bool { return true })
	require.NoError(t, err)
	require.NoError(t, s.Close())
	t.Log("after rw close"); ls(t, dir)
	r, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Log("after ro open"); ls(t, dir)
	err = r.Read(ctx, "SELECT * FROM t", func([]string) {}, func([]any) bool { return true })
	require.NoError(t, err)
	t.Log("after read"); ls(t, dir)
	require.NoError(t, r.Close())
	t.Log("after ro close"); ls(t, dir)
}
