package release_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleaseStopsWithoutModules: with a module cache that lacks the
// dependencies and no way to fetch them, release.sh stops before building
// anything and names the command that fixes it, instead of failing in the
// middle of the builds with "module lookup disabled by GOPROXY=off".
func TestReleaseStopsWithoutModules(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(repoRoot(t), "scripts", "release.sh"), "v0.0.1", out)
	cmd.Env = append(os.Environ(), "GOMODCACHE="+t.TempDir(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "TARGETS=linux/amd64")
	msg, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", msg)
	assert.Contains(t, string(msg), "run `go mod download` where the module proxy is reachable")
	assert.NotContains(t, string(msg), "built ", "nothing is built")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
