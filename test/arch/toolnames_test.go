package arch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// toolNameHome is the one production file that spells the tools' names:
// every other reader takes them from its constants (or from
// domain.Tools), so a name, like a bound or a default, is written once.
const toolNameHome = "domain/tool.go"

// toolNameHomonyms are the literals, by file, that are spelled like a tool
// but name something else: domain.SealKind, the kind of the event that
// seals a checkpoint, the "checkpoint" source and kind of a search_memory
// hit that is a checkpoint's summary, and the "snapshot" key of
// destructive_query's audit detail (the snapshot's path). All are stored
// or shown values.
var toolNameHomonyms = map[string][]string{
	"domain/seal.go":      {domain.ToolCheckpoint},
	"domain/memsearch.go": {domain.ToolCheckpoint},
	"app/write.go":        {domain.ToolSnapshot},
}

// TestToolNamesAreSpelledOnce parses every production Go file (everything
// outside test/ but _test.go files) and fails on a string literal that is
// a tool's name anywhere but toolNameHome.
func TestToolNamesAreSpelledOnce(t *testing.T) {
	names := map[string]bool{}
	for _, d := range domain.Tools() {
		names[d.Name] = true
	}
	require.Len(t, names, 14)
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	require.NoError(t, err)
	root := strings.TrimSpace(string(out))

	found := map[string][]string{} // file -> names
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel == "test" || e.Name() == "testdata" || (strings.HasPrefix(e.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && names[v] {
					found[rel] = append(found[rel], v)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)

	assert.Len(t, found[toolNameHome], 14, "%s spells each tool's name once", toolNameHome)
	for file, lits := range found {
		if file == toolNameHome {
			continue
		}
		assert.Equal(t, toolNameHomonyms[file], lits,
			"%s spells a tool's name; use the domain.Tool* constants (or, for another thing of the same spelling, list it in toolNameHomonyms)", file)
	}
	for file, lits := range toolNameHomonyms {
		assert.Equal(t, lits, found[file], "%s: toolNameHomonyms is out of date", file)
	}
}
