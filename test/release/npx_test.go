package release_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNpxHandshake: in a folder where the npm packages were installed from
// their tarballs ($RELEASE_NPM_PREFIX, set by test/release/run.sh in CI),
// `npx -y mcp-sqlite-memory --db PATH` serves MCP over stdio: initialize
// and tools/list complete, with every tool, and the database is created.
func TestNpxHandshake(t *testing.T) {
	prefix := os.Getenv("RELEASE_NPM_PREFIX")
	if prefix == "" {
		t.Skip("RELEASE_NPM_PREFIX names a folder with the npm packages installed (test/release/run.sh)")
	}
	db := filepath.Join(t.TempDir(), "agent", "memory.db")
	// --offline: the packages are installed; npx must not reach for the registry.
	cmd := exec.Command("npx", "--offline", "-y", "mcp-sqlite-memory", "--db", db)
	cmd.Dir = prefix
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := e2e.Connect(ctx, cmd)
	require.NoError(t, err)
	assert.Equal(t, "mcp-sqlite-memory", p.Session.InitializeResult().ServerInfo.Name)
	list, err := p.Session.ListTools(ctx, nil)
	require.NoError(t, err, "stderr: %s", p.Stderr)
	var got, want []string
	for _, tool := range list.Tools {
		got = append(got, tool.Name)
	}
	for _, tool := range domain.Tools() {
		want = append(want, tool.Name)
	}
	assert.ElementsMatch(t, want, got)
	require.NoError(t, p.Session.Close())
	assert.FileExists(t, db, "the server created the database and its folder")
}
