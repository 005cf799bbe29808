// Package arch_test enforces the hexagonal dependency rules on the module's
// own import graph, so a forbidden edge fails the build of the test suite
// rather than a code review.
package arch_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func listPackages(t *testing.T) (module string, pkgs []pkg) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m").Output()
	require.NoError(t, err)
	module = strings.TrimSpace(string(out))
	cmd := exec.Command("go", "list", "-json", module+"/...")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	dec := json.NewDecoder(stdout)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.NoError(t, cmd.Wait())
	require.NotEmpty(t, pkgs)
	return module, pkgs
}

// layer returns the top folder and, for adapters, the adapter's own folder.
func layer(module, path string) (top, own string) {
	rel := strings.TrimPrefix(path, module+"/")
	parts := strings.Split(rel, "/")
	top = parts[0]
	if top == "adapters" && len(parts) > 1 {
		own = "adapters/" + parts[1]
	}
	return top, own
}

// violation explains why from may not import imp, or returns "".
func violation(module, from, imp string) string {
	top, own := layer(module, from)
	internal := strings.HasPrefix(imp, module+"/")
	std := !internal && !strings.Contains(strings.Split(imp, "/")[0], ".")
	if std {
		return ""
	}
	itop, iown := "", ""
	if internal {
		itop, iown = layer(module, imp)
	}
	switch top {
	case "domain":
		if itop != "domain" {
			return "domain may import only the standard library"
		}
	case "ports":
		if itop != "domain" && itop != "ports" {
			return "ports may import only domain"
		}
	case "app":
		if itop != "domain" && itop != "ports" && itop != "app" {
			return "app may import only domain and ports"
		}
	case "adapters":
		if itop == "app" && own != "adapters/mcpserver" {
			return "a driven adapter implements ports and never imports app"
		}
		if itop == "adapters" && iown != own {
			return "adapters must not import each other"
		}
		if itop == "cmd" {
			return "only cmd and test compose the program (cmd/wire)"
		}
	case "test":
		// The fakes stand in for adapters: they may lean on the rules
		// and the ports, never on an adapter or the core they serve.
		if strings.HasPrefix(from, module+"/test/fake") && internal && itop != "domain" && itop != "ports" {
			return "test/fake may import only domain and ports"
		}
	}
	return ""
}

func TestDependencyRule(t *testing.T) {
	module, pkgs := listPackages(t)
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if why := violation(module, p.ImportPath, imp); why != "" {
				t.Errorf("%s imports %s: %s", p.ImportPath, imp, why)
			}
		}
	}
}

func TestRuleCatchesViolations(t *testing.T) {
	m := "example.com/x"
	cases := []struct{ from, imp string }{
		{m + "/domain", "github.com/some/lib"},
		{m + "/domain", m + "/ports"},
		{m + "/ports", m + "/app"},
		{m + "/app", m + "/adapters/sqlite"},
		{m + "/app", "modernc.org/sqlite"},
		{m + "/adapters/sqlite", m + "/app"},
		{m + "/adapters/ripgrep", m + "/adapters/regexp2"},
		{m + "/adapters/mcpserver", m + "/cmd/wire"},
		{m + "/adapters/snapshot", m + "/adapters/sqlite/undo"},
		{m + "/adapters/sqlite/undo", m + "/adapters/snapshot"},
		{m + "/app", m + "/cmd/wire"},
		{m + "/test/fake", m + "/adapters/sqlite"},
		{m + "/test/fake", m + "/app"},
	}
	for _, c := range cases {
		assert.NotEmpty(t, violation(m, c.from, c.imp), "%s -> %s", c.from, c.imp)
	}
	for _, c := range []struct{ from, imp string }{
		{m + "/domain", "strings"},
		{m + "/app", m + "/ports"},
		{m + "/adapters/mcpserver", m + "/app"},
		{m + "/adapters/sqlite", "modernc.org/sqlite"},
		{m + "/adapters/sqlite/undo", m + "/adapters/sqlite"},
		{m + "/adapters/sqlite/undo", m + "/adapters/sqlite/engine"},
		{m + "/cmd/x", m + "/adapters/sqlite"},
		{m + "/test/harness", m + "/cmd/wire"},
		{m + "/test/fake", m + "/ports"},
	} {
		assert.Empty(t, violation(m, c.from, c.imp), "%s -> %s", c.from, c.imp)
	}
}

func TestTopLevelLayout(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "-m").Output()
	require.NoError(t, err)
	root := strings.TrimSpace(string(out))
	for _, d := range []string{"domain", "ports", "adapters", "app", "cmd", "test"} {
		assert.DirExists(t, root+"/"+d)
	}
	for _, f := range []string{"go.mod", "go.sum", "ARCHITECTURE.md", "README.md"} {
		assert.FileExists(t, root+"/"+f)
	}
}

// TestServerDoesNotLinkReplication: the server's executable links no
// Litestream (nor the cloud SDK it brings): their package initialisation
// would run at every start (docs/decisions.md#replication). Only the
// replication sidecar, cmd/mcp-sqlite-memory-replicate, links them.
func TestServerDoesNotLinkReplication(t *testing.T) {
	module, _ := listPackages(t)
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
		require.NoError(t, err)
		return strings.Fields(string(out))
	}
	heavy := func(dep string) bool {
		return strings.Contains(dep, "benbjohnson/litestream") || strings.Contains(dep, "aws-sdk") ||
			strings.Contains(dep, "prometheus") || strings.HasSuffix(dep, "/adapters/litestream")
	}
	for _, dep := range deps("/cmd/mcp-sqlite-memory") {
		assert.False(t, heavy(dep), "cmd/mcp-sqlite-memory depends on %s; replication belongs in cmd/mcp-sqlite-memory-replicate", dep)
	}
	found := false
	for _, dep := range deps("/cmd/mcp-sqlite-memory-replicate") {
		found = found || strings.Contains(dep, "benbjohnson/litestream")
	}
	assert.True(t, found, "the check must look at real dependency lists: the sidecar links Litestream")
}
