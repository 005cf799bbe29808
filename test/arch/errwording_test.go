package arch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// textTests are the functions that read a string's content: called on an
// error's text they tell errors apart by wording, which breaks the day a
// library rewords its message. Errors are told apart by type (errors.As),
// sentinel (errors.Is) or SQLite's result code instead.
var textTests = map[string]bool{
	"Contains": true, "HasPrefix": true, "HasSuffix": true, "EqualFold": true,
	"Index": true, "Cut": true, "CutPrefix": true, "CutSuffix": true,
}

// errorWordingMatches returns where src (one Go file) tests the text of
// an error: x.Error() passed to a strings function that reads content,
// or compared with ==, != or in a switch.
func errorWordingMatches(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	isErrorText := func(e ast.Expr) bool {
		c, ok := e.(*ast.CallExpr)
		if !ok || len(c.Args) != 0 {
			return false
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Error"
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || !textTests[sel.Sel.Name] {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "strings" {
				return true
			}
			for _, a := range n.Args {
				if isErrorText(a) {
					found = append(found, fset.Position(n.Pos()).String())
				}
			}
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isErrorText(n.X) || isErrorText(n.Y)) {
				found = append(found, fset.Position(n.Pos()).String())
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && isErrorText(n.Tag) {
				found = append(found, fset.Position(n.Pos()).String())
			}
		}
		return true
	})
	return found, nil
}

// TestErrorsAreNotToldApartByWording: no code of the server (tests
// excepted, which may check a message an agent reads) decides what an
// error is by reading its text.
func TestErrorsAreNotToldApartByWording(t *testing.T) {
	fset := token.NewFileSet()
	files := serverSources(t, nil, func(path string) {
		found, err := errorWordingMatches(fset, path, nil)
		require.NoError(t, err)
		for _, at := range found {
			t.Errorf("%s: an error told apart by its wording; use errors.As, errors.Is or SQLite's result code", at)
		}
	})
	assert.Greater(t, files, 100, "the walk found the server's files")
}

func TestErrorWordingRuleCatchesViolations(t *testing.T) {
	for _, src := range []string{
		`package p; import "strings"; func f(err error) bool { return strings.Contains(err.Error(), "locked") }`,
		`package p; import "strings"; func f(err error) bool { return strings.HasPrefix(e().Error(), "x") }`,
		`package p; func f(err error) bool { return err.Error() == "EOF" }`,
		`package p; func f(err error) bool { switch err.Error() { case "x": return true }; return false }`,
	} {
		found, err := errorWordingMatches(token.NewFileSet(), "x.go", src)
		require.NoError(t, err)
		assert.NotEmpty(t, found, src)
	}
	for _, src := range []string{
		`package p; import "strings"; func f(err error) string { return strings.ReplaceAll(err.Error(), "/a", "a") }`,
		`package p; import "strings"; func f(msg string) bool { return strings.Contains(msg, "x") }`,
		`package p; import "errors"; func f(err error) bool { return errors.Is(err, nil) }`,
	} {
		found, err := errorWordingMatches(token.NewFileSet(), "x.go", src)
		require.NoError(t, err)
		assert.Empty(t, found, src)
	}
}
