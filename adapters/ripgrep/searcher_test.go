package ripgrep_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
)

// mustFindRg returns rg's path. It skips the test when rg is absent, except
// in CI (CI set), where ripgrep must be installed and tested.
func mustFindRg(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ripgrep (rg) is not on PATH, and CI must test it: %v", err)
		}
		t.Skipf("ripgrep (rg) is not on PATH: %v", err)
	}
	return path
}

func TestSearcherContract(t *testing.T) {
	t.Parallel()
	rg := mustFindRg(t)
	contract.TestTextSearcher(t, func(*testing.T) ports.TextSearcher { return ripgrep.New(rg) })
}
