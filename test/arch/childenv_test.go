package arch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryChildGetsAnAllowListedEnvironment: every function of the
// shipped code that makes a child process (exec.Command, exec.CommandContext)
// also sets its Env from domain.ChildEnv, so no child, including one added
// later, inherits the server's environment (a bearer token, credentials)
// by default; exec leaves Env nil, which means "everything". The
// benchmark harness (cmd/mcp-sqlite-memory-bench) is a developer's tool
// that runs go and sqlite3 with the developer's own environment; it is
// not shipped.
func TestEveryChildGetsAnAllowListedEnvironment(t *testing.T) {
	t.Parallel()
	found := 0
	serverSources(t, []string{"mcp-sqlite-memory-bench"}, func(path string) {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if calls(fn.Body, "exec", "Command") || calls(fn.Body, "exec", "CommandContext") {
				found++
				assert.True(t, setsChildEnv(fn.Body), "%s: %s starts a child process without setting its Env from domain.ChildEnv", path, fn.Name.Name)
			}
		}
	})
	assert.GreaterOrEqual(t, found, 2, "the ripgrep adapter and the replication sidecar start children; the walk found fewer")
}

// calls reports whether body calls pkg.name.
func calls(body ast.Node, pkg, name string) bool {
	hit := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == name {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg {
					hit = true
				}
			}
		}
		return !hit
	})
	return hit
}

// setsChildEnv reports whether body assigns X.Env = <...domain.ChildEnv(...)...>.
func setsChildEnv(body ast.Node) bool {
	hit := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return !hit
		}
		if sel, ok := as.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Env" && calls(as.Rhs[0], "domain", "ChildEnv") {
			hit = true
		}
		return !hit
	})
	return hit
}
