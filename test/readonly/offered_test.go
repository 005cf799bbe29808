package readonly_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// refusalsToAdvise are the statements a new user sends first to a
// read-only server, each refused with advice in write mode.
var refusalsToAdvise = []string{
	"INSERT INTO customers(name) VALUES ('x')",
	"UPDATE customers SET name = 'y'",
	"DELETE FROM orders",
	"DROP TABLE orders",
	"ALTER TABLE orders ADD COLUMN c",
	"CREATE TABLE t (a)",
	"CREATE INDEX i ON customers(name)",
	"CREATE VIRTUAL TABLE f USING fts5(body)",
	"CREATE VIEW v AS SELECT 1",
	"CREATE TRIGGER tr AFTER INSERT ON orders BEGIN SELECT 1; END",
	"CREATE TEMP TABLE t (a)",
	"VACUUM",
	"REINDEX",
	"ANALYZE",
	"WITH x AS (SELECT 1) INSERT INTO customers(name) SELECT * FROM x",
	"SELECT * FROM no_such_table",
	"SELECT * FROM generate_series(1, 3)",
}

// notOffered matches a tool the server does not offer, as a word.
func notOffered(t *testing.T, offered []string) *regexp.Regexp {
	t.Helper()
	have := map[string]bool{}
	for _, n := range offered {
		have[n] = true
	}
	var missing []string
	for _, d := range domain.Tools() {
		switch {
		case have[d.Name]:
		case strings.Contains(d.Name, "_"):
			missing = append(missing, `\b`+regexp.QuoteMeta(d.Name)+`\b`)
		default:
			// A one-word name (checkpoint, snapshot) is also a word for
			// the thing: only its uses as a tool's name count.
			w := regexp.QuoteMeta(d.Name)
			missing = append(missing, `\b(use|call|with|run) (the )?`+w+`\b`, `\b`+w+` tool\b`, `\b`+w+`'s`)
		}
	}
	require.NotEmpty(t, missing)
	return regexp.MustCompile(`(?i)` + strings.Join(missing, "|"))
}

// TestReadOnlyTextsNameOnlyOfferedTools runs every refusal path a
// read-only server has (the attack corpus, the other read tools' attacks,
// the statements new users send first) and reads its descriptions and
// instructions: none names a tool the server does not offer, since the
// agent cannot call it.
func TestReadOnlyTextsNameOnlyOfferedTools(t *testing.T) {
	data := newShop()
	for _, fx := range shopFixtures {
		t.Run(fx.name, func(t *testing.T) {
			s := openSession(t, fx, data)
			list, err := s.Client.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var offered []string
			for _, tool := range list.Tools {
				offered = append(offered, tool.Name)
			}
			bad := notOffered(t, offered)
			for _, tool := range list.Tools {
				assert.NotRegexp(t, bad, tool.Description, "description of %s", tool.Name)
				for name, p := range tool.InputSchema.(map[string]any)["properties"].(map[string]any) {
					assert.NotRegexp(t, bad, p.(map[string]any)["description"], "%s.%s", tool.Name, name)
				}
			}
			assert.NotRegexp(t, bad, s.Client.InitializeResult().Instructions, "instructions")
			check := func(what, out string, isErr bool) {
				assert.True(t, isErr, "%s must be refused, got: %s", what, out)
				assert.NotRegexp(t, bad, out, what)
			}
			for _, sql := range refusalsToAdvise {
				out, isErr := s.Call(t, "read_query", map[string]any{"query": sql})
				check(sql, out, isErr)
				out, isErr = s.Call(t, "search_text", map[string]any{"pattern": "x", "table": "customers", "where": "id IN (" + sql + ")"})
				check("search_text where "+sql, out, isErr)
			}
			for _, a := range loadAttacks(t, s.dir) {
				out, isErr := s.Call(t, "read_query", map[string]any{"query": a.sql})
				check(a.name, out, isErr)
			}
			for _, a := range otherAttacks {
				out, isErr := s.Call(t, a.tool, a.args)
				check(a.name, out, isErr)
			}
			s.closeAndCheck(t)
		})
	}
}
