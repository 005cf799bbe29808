package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestDecodeKeepsDefaultsAndNamesBadArguments(t *testing.T) {
	schema, err := jsonschema.For[ReadQueryArgs](nil)
	require.NoError(t, err)
	cases := []struct {
		name, raw string
		want      ReadQueryArgs
		err       bool
	}{
		{"defaults stay", `{"query": "SELECT 1"}`, ReadQueryArgs{Query: "SELECT 1", Limit: 7}, false},
		{"values override", `{"query": "q", "limit": 3, "offset": 2}`, ReadQueryArgs{Query: "q", Limit: 3, Offset: 2}, false},
		{"missing required", `{"limit": 3}`, ReadQueryArgs{}, true},
		{"null required", `{"query": null}`, ReadQueryArgs{}, true},
		{"unknown argument", `{"query": "q", "sql": "x"}`, ReadQueryArgs{}, true},
		{"wrong type", `{"query": "q", "limit": "ten"}`, ReadQueryArgs{}, true},
		{"not an object", `[1]`, ReadQueryArgs{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ReadQueryArgs{Limit: 7}
			err := decode(json.RawMessage(c.raw), &in, schema)
			if c.err {
				assert.ErrorIs(t, err, domain.ErrInvalidArgument)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, in)
		})
	}
}

func TestEveryToolHasADescriptionAndInstructionsNameTheResumeTool(t *testing.T) {
	d := describe(domain.DefaultLimits())
	for name, text := range map[string]string{
		"read_query": d.readQuery, "write_query": d.writeQuery, "destructive_query": d.destructiveQuery,
		"list_tables": d.listTables, "describe_table": d.describeTable, "get_schema": d.getSchema,
		"create_view": d.createView, "append_event": d.appendEvent, "verify_chain": d.verifyChain,
		"checkpoint": d.checkpoint, "get_resume_context": d.resume, "search_text": d.searchText, "snapshot": d.snapshot,
	} {
		assert.Greater(t, len(text), 80, name)
	}
	assert.Contains(t, instructions(false), "get_resume_context")
	assert.NotContains(t, instructions(true), "write_query", "read-only mode offers no write tools")
}
