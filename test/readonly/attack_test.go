package readonly_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attack is one entry of testdata/read_attacks.sql.
type attack struct{ name, sql string }

// loadAttacks reads the corpus, with {{dir}} replaced by dir.
func loadAttacks(t *testing.T, dir string) []attack {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "read_attacks.sql"))
	require.NoError(t, err)
	var out []attack
	for _, block := range strings.Split(string(b), "\n-- attack: ")[1:] {
		name, body, ok := strings.Cut(block, "\n")
		require.True(t, ok, "attack %q has no statement", name)
		out = append(out, attack{name: name, sql: strings.TrimSpace(strings.ReplaceAll(body, "{{dir}}", dir))})
	}
	require.Greater(t, len(out), 90, "the whole corpus was read")
	return out
}

// otherAttacks reach the read tier through the other read tools.
var otherAttacks = []struct {
	name, tool string
	args       map[string]any
}{
	{"search_text where with a second statement", "search_text", map[string]any{"pattern": "x", "table": "customers", "where": "1); DELETE FROM orders; --"}},
	{"search_text where with a write in a subquery", "search_text", map[string]any{"pattern": "x", "table": "customers", "where": "id IN (DELETE FROM orders RETURNING customer_id)"}},
	{"search_text where calling load_extension", "search_text", map[string]any{"pattern": "x", "table": "customers", "where": "load_extension('x') IS NULL"}},
	{"search_text on a missing table", "search_text", map[string]any{"pattern": "x", "table": "customers; DROP TABLE orders"}},
	{"describe_table with injected SQL", "describe_table", map[string]any{"table": "customers'); DROP TABLE orders; --"}},
	{"read_query with a negative offset", "read_query", map[string]any{"query": "SELECT 1", "offset": -1}},
}

func TestAttackCorpusInReadOnlyMode(t *testing.T) {
	data := newShop()
	for _, fx := range shopFixtures {
		t.Run(fx.name, func(t *testing.T) {
			s := openSession(t, fx, data)
			tables := s.MustCall(t, "list_tables", nil)
			for _, a := range loadAttacks(t, s.dir) {
				out, isErr := s.Call(t, "read_query", map[string]any{"query": a.sql})
				assert.True(t, isErr, "%s must be refused, got: %s", a.name, out)
				assert.NotContains(t, out, s.dir, "%s: error texts name no folder", a.name)
			}
			for _, a := range otherAttacks {
				out, isErr := s.Call(t, a.tool, a.args)
				assert.True(t, isErr, "%s must be refused, got: %s", a.name, out)
				assert.NotContains(t, out, s.dir, a.name)
			}
			assert.Equal(t, tables, s.MustCall(t, "list_tables", nil), "same tables, same row counts")
			if !fx.memory {
				assert.NotContains(t, tables, "query_log", "no server table was created")
			}
			s.closeAndCheck(t)
		})
	}
}

// The same corpus against the layers behind the authorizer alone runs in
// adapters/sqlite (TestReadOnlyAttackCorpusWithTheAuthorizerOff): only that
// package's tests can switch the authorizer off.
