package arch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
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
// seals a checkpoint, the "snapshot" key of destructive_query's audit
// detail (the snapshot's path), the "checkpoint" source and kind of a search_memory hit that is a
// checkpoint's summary, all stored or shown values, the value "snapshot" of
// --confirm-fallback, and the export format's line type of a checkpoint row.
var toolNameHomonyms = map[string][]string{
	"domain/seal.go":                      {domain.ToolCheckpoint},
	"app/write.go":                        {domain.ToolSnapshot},
	"domain/confirm.go":                   {domain.ToolSnapshot},
	"domain/memsearch.go":                 {domain.ToolCheckpoint},
	"cmd/mcp-sqlite-memory/cli_export.go": {domain.ToolCheckpoint},
}

// TestToolNamesAreSpelledOnce parses every production Go file (everything
// outside test/ but _test.go files) and fails on a string literal that is
// a tool's name anywhere but toolNameHome, and on a longer literal that
// names a tool (a refusal's advice, a description, the connect-time
// instructions) anywhere but toolNameHome and cmd/: what the agent reads
// takes every tool name from its constant. cmd/ is text for people (the
// subcommands' help, the benchmark's figure labels), which, like README,
// spells the names it shows.
func TestToolNamesAreSpelledOnce(t *testing.T) {
	names := map[string]bool{}
	for _, d := range domain.Tools() {
		names[d.Name] = true
	}
	require.Len(t, names, 15)
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	require.NoError(t, err)
	root := strings.TrimSpace(string(out))

	found := map[string][]string{} // file -> names
	var inText []string            // "file:line:col: name" of names inside longer literals
	namedInText := toolNameInText()
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
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				if names[v] {
					found[rel] = append(found[rel], v)
				} else if m := namedInText.FindString(v); m != "" && rel != toolNameHome && !strings.HasPrefix(rel, "cmd/") {
					inText = append(inText, rel+":"+strconv.Itoa(fset.Position(lit.Pos()).Line)+": "+m)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)

	assert.Len(t, found[toolNameHome], 15, "%s spells each tool's name once", toolNameHome)
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
	assert.Empty(t, inText, "messages and descriptions that name a tool take the name from its domain.Tool* constant:\n%s", strings.Join(inText, "\n"))
}

// toolNameInText matches a tool's name inside a longer text: a name with
// an underscore (read_query, ...) anywhere as a word; "snapshot" and
// "checkpoint", which are also ordinary words, where the text names the
// tool ("the snapshot tool", "use checkpoint").
func toolNameInText() *regexp.Regexp {
	var compound, plain []string
	for _, d := range domain.Tools() {
		if strings.Contains(d.Name, "_") {
			compound = append(compound, regexp.QuoteMeta(d.Name))
		} else {
			plain = append(plain, regexp.QuoteMeta(d.Name))
		}
	}
	p := `(?i:\buse (?:the )?(?:` + strings.Join(plain, "|") + `)\b|\b(?:` + strings.Join(plain, "|") + `) tool\b)`
	return regexp.MustCompile(`\b(?:` + strings.Join(compound, "|") + `)\b|` + p)
}

// TestToolNameInTextFindsTheForms keeps toolNameInText honest: it finds a
// tool named in a message and leaves the ordinary words alone.
func TestToolNameInTextFindsTheForms(t *testing.T) {
	t.Parallel()
	re := toolNameInText()
	for _, s := range []string{
		"%s is not allowed in %s; use write_query",
		"run other statements with write_query",
		"VACUUM is not allowed; use the snapshot tool for a copy",
		"Use checkpoint at milestones",
		"written only by the checkpoint tool",
	} {
		assert.NotEmpty(t, re.FindString(s), s)
	}
	for _, s := range []string{
		"cannot create a file in the snapshot folder",
		"# checkpoint summary cut to ",
		"ok: snapshot written: ",
		"use " + domain.ToolWriteQuery[:5],
		"the max_rows setting",
	} {
		assert.Empty(t, re.FindString(s), s)
	}
}
