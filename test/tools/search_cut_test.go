package tools_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestSearchTextSearchesTheHeadOfLongValues: a value longer than
// --max-search-value-bytes is searched in its head only, cut at a
// character boundary, identically with both engines, and the result says
// how many values were cut and which setting to raise.
func TestSearchTextSearchesTheHeadOfLongValues(t *testing.T) {
	for name, engine := range engines(t) {
		t.Run(name, func(t *testing.T) {
			l := domain.DefaultLimits()
			l.MaxSearchValueBytes = 12
			env := searchEnv(t, engine, l)
			env.MustCall(t, "write_query", map[string]any{"query": `INSERT INTO notes (title, body, n) VALUES
				('long', 'needle at the start, then more text', 5),
				('late', 'far far away: the needle', 6),
				('utf8', 'éééééé needle', 7)`})
			call := func(pattern string) string {
				return env.MustCall(t, "search_text", map[string]any{"table": "notes", "pattern": pattern, "columns": []any{"body"}, "context_chars": 3})
			}
			// Six bodies are longer than 12 bytes: three of the fixture's
			// and the three above.
			assert.Equal(t, "key,column,snippet\n5,body,needle at...\n"+
				"# 1 of 1 matching values in 1 rows (7 candidate rows x 1 columns scanned); "+
				"6 values longer than 12 bytes were searched in their first 12 bytes only (--max-search-value-bytes)",
				call("needle"), "a needle past the head is not found; the cut values are counted")
			assert.Equal(t, "key,column,snippet\n7,body,éééééé\n"+
				"# 1 of 1 matching values in 1 rows (7 candidate rows x 1 columns scanned); "+
				"6 values longer than 12 bytes were searched in their first 12 bytes only (--max-search-value-bytes)",
				call("é{6}"), "the cut never splits a character: six é are 12 bytes")
			assert.Contains(t, call("about"), "1,body,...te about\n", "the head ends the searched line")
			assert.Contains(t, call("apples"), "# 0 of 0 matching values", "past the head nothing is found")
			assert.Contains(t, call("^g"), "# 0 of 0", "NULL is not searched")
			env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO notes (body) VALUES ('short one')"})
			assert.Equal(t, "key,column,snippet\n8,body,short one\n# 1 of 1 matching values in 1 rows (8 candidate rows x 1 columns scanned); "+
				"6 values longer than 12 bytes were searched in their first 12 bytes only (--max-search-value-bytes)",
				call("^short one$"), "a short value is searched whole")
		})
	}
}
