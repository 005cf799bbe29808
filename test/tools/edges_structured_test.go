package tools_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// structuredCalls are calls of every tool that answers with a table.
var structuredCalls = []struct {
	tool string
	args map[string]any
}{
	{"read_query", map[string]any{"query": "SELECT NULL AS n, '' AS e, 42 AS i, 2.5 AS f, x'0102' AS b, 9007199254740993 AS big, 'abcdefghijkl' AS long, 'a,\"b\"' AS q"}},
	{"read_query", map[string]any{"query": "SELECT id, body FROM t ORDER BY id", "limit": 2}},
	{"write_query", map[string]any{"query": "INSERT INTO t(body) VALUES ('new') RETURNING id, body"}},
	{"write_query", map[string]any{"query": "UPDATE t SET body = 'x' WHERE id = 1"}},
	{"destructive_query", map[string]any{"query": "DELETE FROM t WHERE id = 2 RETURNING id", "reason": "test"}},
	{"list_tables", map[string]any{}},
	{"search_text", map[string]any{"table": "t", "pattern": "o"}},
	{"search_memory", map[string]any{"query": "note"}},
}

func structuredEnv(t *testing.T, on bool) *edgesClient {
	l := domain.DefaultLimits()
	l.MaxCellChars = 5
	// A fixed clock: both servers' events carry the same ts.
	ec, _ := edgesConnect(t, harness.Config{Limits: l, Structured: on, Clock: fake.NewClock(time.Date(2026, 9, 13, 10, 0, 0, 0, time.UTC))})
	ec.call(t, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)"}, nil)
	ec.call(t, "write_query", map[string]any{"query": "INSERT INTO t(body) VALUES ('one'), ('two'), (NULL)"}, nil)
	ec.call(t, "append_event", map[string]any{"content": "a note about the importer"}, nil)
	return ec
}

func TestStructuredResultsMatchTheirSchemaAndKeepTheCSV(t *testing.T) {
	off, on := structuredEnv(t, false), structuredEnv(t, true)
	schemas := map[string]*jsonschema.Resolved{}
	list, err := on.cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range list.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		b, err := json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(b, &s))
		schemas[tool.Name], err = s.Resolve(nil)
		require.NoError(t, err, tool.Name)
	}
	assert.Len(t, schemas, 6, "read_query, write_query, destructive_query, list_tables, search_text, search_memory")
	offList, err := off.cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range offList.Tools {
		assert.Nil(t, tool.OutputSchema, "off by default: %s", tool.Name)
	}

	for _, c := range structuredCalls {
		plain := off.call(t, c.tool, c.args, nil)
		rich := on.call(t, c.tool, c.args, nil)
		assert.Nil(t, plain.StructuredContent, c.tool)
		// The CSV is unchanged (but for the snapshot's own path).
		if c.tool != "destructive_query" {
			assert.Equal(t, plain.Content[0].(*mcp.TextContent).Text, rich.Content[0].(*mcp.TextContent).Text, c.tool)
		}
		require.NotNil(t, rich.StructuredContent, c.tool)
		b, err := json.Marshal(rich.StructuredContent)
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal(b, &v))
		require.NotNil(t, schemas[c.tool], c.tool)
		assert.NoError(t, schemas[c.tool].Validate(v), "%s: %s", c.tool, b)
	}

	first := on.call(t, "read_query", structuredCalls[0].args, nil)
	b, _ := json.Marshal(first.StructuredContent)
	assert.JSONEq(t, `{"columns":["n","e","i","f","b","big","long","q"],
		"rows":[[null,"",42,2.5,{"blob_bytes":2},"9007199254740993","abcde...[+7 chars]","a,\"b\""]]}`, string(b))
	update := on.call(t, "write_query", map[string]any{"query": "UPDATE t SET body = 'y' WHERE id = 1"}, nil)
	b, _ = json.Marshal(update.StructuredContent)
	assert.JSONEq(t, `{"columns":[],"rows":[]}`, string(b))
	paged := on.call(t, "read_query", map[string]any{"query": "SELECT id FROM t ORDER BY id", "limit": 1}, nil)
	b, _ = json.Marshal(paged.StructuredContent)
	assert.JSONEq(t, `{"columns":["id"],"rows":[[1]]}`, string(b), "the rows the CSV shows, no more")
}
