package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// declRequired are values for each tool's required arguments that make the
// call succeed on the database declSeed leaves, however often it is made.
var declRequired = map[string]map[string]any{
	"read_query":        {"query": "SELECT id FROM notes"},
	"write_query":       {"query": "CREATE TABLE IF NOT EXISTS decl_more (a)"},
	"destructive_query": {"query": "DROP TABLE IF EXISTS decl_gone", "reason": "bounds test"},
	"describe_table":    {"table": "notes"},
	"create_view":       {"name": "decl_view", "select_sql": "SELECT 1", "replace": true},
	"append_event":      {"content": "bounds test"},
	"retract_event":     {"id": 1, "reason": "bounds test"},
	"checkpoint":        {"summary": "bounds test"},
	"search_text":       {"pattern": "a", "table": "notes"},
	"search_memory":     {"query": "seed"},
}

func declSeed(t *testing.T, env *harness.Env) {
	t.Helper()
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('apple'), ('banana'), ('cherry'), ('date'), ('elderberry'), ('fig'), ('grape')"})
	env.MustCall(t, "append_event", map[string]any{"content": "seed"})
}

// TestEveryToolTakesItsDefaultsAndBounds calls every tool the server lists
// with {}, with its required arguments only (every default), and with each
// bound its schema declares (min, max, min-1, max+1), under small and
// default limits. A default the schema shows must be accepted by the tool,
// a bound it shows must be the one the tool enforces.
func TestEveryToolTakesItsDefaultsAndBounds(t *testing.T) {
	small := domain.DefaultLimits()
	small.MaxRows, small.DefaultLimit = 5, 3
	tiny := domain.DefaultLimits()
	tiny.MaxRows, tiny.DefaultLimit = 1, 1
	for _, lc := range []struct {
		name   string
		limits domain.Limits
	}{{"defaults", domain.DefaultLimits()}, {"max-rows 5", small}, {"max-rows 1", tiny}} {
		t.Run(lc.name, func(t *testing.T) {
			env := harness.New(t, harness.Config{Limits: lc.limits})
			declSeed(t, env)
			list, err := env.Client.ListTools(context.Background(), nil)
			require.NoError(t, err)
			require.Len(t, list.Tools, len(domain.Tools()))
			for _, tool := range list.Tools {
				schema := declSchema(t, tool.InputSchema)
				required := declRequired[tool.Name]
				// Every required argument has a value above: a tool that
				// gains one must be added to declRequired.
				for _, name := range schema.Required {
					assert.Contains(t, required, name, "%s: no test value for required argument %s", tool.Name, name)
				}
				if len(schema.Required) == 0 {
					out, isErr := env.Call(t, tool.Name, map[string]any{})
					assert.False(t, isErr, "%s {} failed under %s: %s", tool.Name, lc.name, out)
				} else {
					out := env.MustFail(t, tool.Name, map[string]any{})
					assert.Contains(t, out, fmt.Sprintf("missing required argument %q", schema.Required[0]), tool.Name)
				}
				out, isErr := env.Call(t, tool.Name, declWith(required, "", nil))
				assert.False(t, isErr, "%s with defaults failed under %s: %s", tool.Name, lc.name, out)

				for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
					p := schema.Properties[name]
					if p.Minimum == nil && p.Maximum == nil {
						continue
					}
					require.NotNil(t, p.Minimum, "%s.%s has a maximum but no minimum", tool.Name, name)
					require.NotNil(t, p.Maximum, "%s.%s has a minimum but no maximum", tool.Name, name)
					lo, hi := *p.Minimum, *p.Maximum
					assert.LessOrEqual(t, lo, hi, "%s.%s", tool.Name, name)
					if p.Default != nil {
						var def float64
						require.NoError(t, json.Unmarshal(p.Default, &def), "%s.%s default", tool.Name, name)
						assert.True(t, def >= lo && def <= hi, "%s.%s: default %v outside [%v, %v] under %s", tool.Name, name, def, lo, hi, lc.name)
					}
					for _, v := range []float64{lo, hi} {
						out, isErr := env.Call(t, tool.Name, declWith(required, name, v))
						assert.False(t, isErr, "%s %s=%v (a bound it declares) failed under %s: %s", tool.Name, name, v, lc.name, out)
					}
					for _, v := range []float64{lo - 1, hi + 1} {
						require.Less(t, math.Abs(v), float64(1<<53), "%s.%s: bound beyond exact JSON integers", tool.Name, name)
						out, isErr := env.Call(t, tool.Name, declWith(required, name, v))
						if assert.True(t, isErr, "%s %s=%v (outside [%v, %v]) was accepted under %s", tool.Name, name, v, lo, hi, lc.name) {
							assert.Contains(t, out, name, "%s: the refusal names the argument", tool.Name)
						}
					}
				}
			}
		})
	}
}

// declSchema reads a listed tool's input schema.
func declSchema(t *testing.T, in any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(in)
	require.NoError(t, err)
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(b, &s))
	return &s
}

// declWith is required plus name=v (when name is set).
func declWith(required map[string]any, name string, v any) map[string]any {
	out := map[string]any{}
	for k, x := range required {
		out[k] = x
	}
	if name != "" {
		out[name] = v
	}
	return out
}
