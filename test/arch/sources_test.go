package arch_test

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// serverSources calls fn with the path of every Go file, tests excepted,
// of the server's own packages (domain, ports, app, adapters, cmd),
// leaving out the folders named in skip; it returns how many it found.
func serverSources(t *testing.T, skip []string, fn func(path string)) int {
	t.Helper()
	found := 0
	for _, dir := range []string{"domain", "ports", "app", "adapters", "cmd"} {
		err := filepath.WalkDir(filepath.Join("..", "..", dir), func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && slices.Contains(skip, d.Name()):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
				return nil
			}
			found++
			fn(path)
			return nil
		})
		require.NoError(t, err)
	}
	return found
}
