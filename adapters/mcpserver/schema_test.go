package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// jsonschemaReference is the input schema as a *jsonschema.Schema, the way
// it was built before inputSchema encoded it itself.
func jsonschemaReference(d domain.Tool, l domain.Limits) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, a := range d.Args {
		p := &jsonschema.Schema{Type: jsonType(a.Type), Description: a.Doc}
		if a.Type == domain.ArgStrings {
			p.Items = &jsonschema.Schema{Type: "string"}
		}
		if a.Default != nil {
			b, _ := json.Marshal(a.Default(l))
			p.Default = b
		}
		if a.Bounds != nil {
			lo, hi := a.Bounds(l)
			p.Minimum, p.Maximum = ptr(float64(lo)), ptr(float64(hi))
		}
		if a.Required {
			s.Required = append(s.Required, a.Name)
		}
		s.Properties[a.Name] = p
	}
	return s
}

// TestInputSchemaIsJSONSchemaByteForByte: the schemas inputSchema encodes
// with plain encoding/json (the reflection-based marshal of
// *jsonschema.Schema was most of building the server, and so of the start) are byte for byte
// what the jsonschema package writes, for every tool, under the default
// limits and others, so tools/list did not change.
func TestInputSchemaIsJSONSchemaByteForByte(t *testing.T) {
	t.Parallel()
	small := domain.DefaultLimits()
	small.MaxRows, small.DefaultLimit = 20, 5
	for _, l := range []domain.Limits{domain.DefaultLimits(), small} {
		for _, d := range domain.OfferedTools(false, true) {
			want, err := json.Marshal(jsonschemaReference(d, l))
			require.NoError(t, err)
			got, err := json.Marshal(inputSchema(d, l))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), d.Name)
		}
	}
}
