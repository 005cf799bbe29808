package arch_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// engineOnly are the imports only the SQLite engine package may have: raw
// memory, and the transpiled C of libc and of SQLite. Everything else goes
// through the engine's API, or the driver's public one.
var engineOnly = []string{"unsafe", "modernc.org/libc", "modernc.org/sqlite/lib"}

// enginePackage is the one package behind the fence.
const enginePackage = "adapters/sqlite/engine"

// engineViolation explains why package from may not import imp, or
// returns "".
func engineViolation(module, from, imp string) string {
	if !slices.Contains(engineOnly, imp) || from == module+"/"+enginePackage {
		return ""
	}
	return "only " + enginePackage + " imports " + imp + "; use its API (or the driver's public one)"
}

// TestOnlyTheEngineTouchesSQLitesInternals: no package of the module, its
// tests included, imports unsafe, modernc.org/libc or modernc.org/sqlite/lib
// except adapters/sqlite/engine.
func TestOnlyTheEngineTouchesSQLitesInternals(t *testing.T) {
	out, err := exec.Command("go", "list", "-m").Output()
	require.NoError(t, err)
	module := strings.TrimSpace(string(out))
	out, err = exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{join .Imports ","}},{{join .TestImports ","}},{{join .XTestImports ","}}`, module+"/...").Output()
	require.NoError(t, err)
	engineImports := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		from, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Split(imports, ",") {
			if why := engineViolation(module, from, imp); why != "" {
				t.Errorf("%s imports %s: %s", from, imp, why)
			}
			if from == module+"/"+enginePackage && slices.Contains(engineOnly, imp) {
				engineImports++
			}
		}
	}
	assert.Positive(t, engineImports, "the engine package is where SQLite's internals are used")
}

func TestEngineRuleCatchesViolations(t *testing.T) {
	m := "example.com/x"
	for _, c := range []struct{ from, imp string }{
		{m + "/adapters/sqlite", "unsafe"},
		{m + "/adapters/sqlite", "modernc.org/sqlite/lib"},
		{m + "/adapters/snapshot", "modernc.org/sqlite/lib"},
		{m + "/test/e2e", "modernc.org/libc"},
		{m + "/adapters/sqlite/engine/sub", "unsafe"},
	} {
		assert.NotEmpty(t, engineViolation(m, c.from, c.imp), "%s -> %s", c.from, c.imp)
	}
	for _, c := range []struct{ from, imp string }{
		{m + "/adapters/sqlite/engine", "unsafe"},
		{m + "/adapters/sqlite/engine", "modernc.org/sqlite/lib"},
		{m + "/adapters/sqlite", "modernc.org/sqlite"},
		{m + "/adapters/sqlite", m + "/adapters/sqlite/engine"},
	} {
		assert.Empty(t, engineViolation(m, c.from, c.imp), "%s -> %s", c.from, c.imp)
	}
}
