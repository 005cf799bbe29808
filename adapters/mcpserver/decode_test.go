package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestDecodeKeepsDefaultsAndNamesBadArguments(t *testing.T) {
	l := domain.DefaultLimits()
	l.DefaultLimit = 7
	var decl []domain.Arg
	for _, d := range domain.Tools() {
		if d.Name == domain.ToolReadQuery {
			decl = d.Args
		}
	}
	require.NotEmpty(t, decl)
	cases := []struct {
		name, raw string
		want      args
		err       bool
	}{
		{"defaults stay", `{"query": "SELECT 1"}`, args{"query": "SELECT 1", "limit": 7, "offset": 0}, false},
		{"null keeps the default", `{"query": "SELECT 1", "limit": null}`, args{"query": "SELECT 1", "limit": 7, "offset": 0}, false},
		{"values override", `{"query": "q", "limit": 3, "offset": 2}`, args{"query": "q", "limit": 3, "offset": 2}, false},
		{"missing required", `{"limit": 3}`, nil, true},
		{"null required", `{"query": null}`, nil, true},
		{"unknown argument", `{"query": "q", "sql": "x"}`, nil, true},
		{"wrong type", `{"query": "q", "limit": "ten"}`, nil, true},
		{"a fraction is no integer", `{"query": "q", "limit": 4.5}`, nil, true},
		{"not an object", `[1]`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decode(json.RawMessage(c.raw), decl, l)
			if c.err {
				assert.ErrorIs(t, err, domain.ErrInvalidArgument)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestEveryToolHasADescriptionAndInstructionsNameTheResumeTool(t *testing.T) {
	for _, d := range domain.Tools() {
		assert.Greater(t, len(d.Describe(domain.DefaultLimits())), 80, d.Name)
	}
	assert.Contains(t, instructions(false), domain.ToolGetResumeContext)
	assert.NotContains(t, instructions(true), domain.ToolWriteQuery, "read-only mode offers no write tools")
}
