package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// Outputs the reference leaves uncapped are capped here and say so (docs/decisions.md#fixes-over-the-reference, item 7).
func TestIntrospectionOutputsAreCapped(t *testing.T) {
	l := domain.DefaultLimits()
	l.MaxResultBytes = 600
	env := harness.New(t, harness.Config{Limits: l})
	var cols []string
	for i := range 60 {
		cols = append(cols, fmt.Sprintf("column_with_a_long_name_%02d TEXT DEFAULT 'some default value'", i))
	}
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE wide (" + strings.Join(cols, ", ") + ")"})
	for i := range 30 {
		env.MustCall(t, "write_query", map[string]any{"query": fmt.Sprintf("CREATE TABLE t%02d (a_column_name_that_is_long TEXT, another_one INTEGER)", i)})
	}

	desc := env.MustCall(t, "describe_table", map[string]any{"table": "wide"})
	assert.LessOrEqual(t, len(desc), 3*600+200, "describe_table stays near 3 x max_result_bytes")
	assert.Contains(t, desc, "# columns truncated at 600 bytes; read them all with read_query on pragma_table_info\n", "a cut section says where the rest is")

	schema := env.MustCall(t, "get_schema", nil)
	assert.LessOrEqual(t, len(schema), 600+200)
	assert.Contains(t, schema, "-- output truncated at 600 bytes")
	assert.True(t, strings.HasPrefix(schema, "-- 31 objects"), schema[:40])
}
