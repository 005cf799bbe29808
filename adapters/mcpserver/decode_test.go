package mcpserver

import (
	"encoding/json"
	"strings"
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
	assert.Contains(t, instructions(false, true), domain.ToolGetResumeContext)
	assert.NotContains(t, instructions(true, true), domain.ToolWriteQuery, "read-only mode offers no write tools")
}

func declOf(t *testing.T, tool string) []domain.Arg {
	t.Helper()
	for _, d := range domain.Tools() {
		if d.Name == tool {
			return d.Args
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// The names an agent reaches for work: a declared alias stands for its
// argument (create_view's SELECT as query, like every other SQL tool), and
// giving both is an error that names the one to keep.
func TestDecodeAcceptsDeclaredAliases(t *testing.T) {
	l := domain.DefaultLimits()
	for _, c := range []struct {
		tool, raw, name, want string
	}{
		{domain.ToolCreateView, `{"name": "v", "query": "SELECT 1"}`, "select_sql", "SELECT 1"},
		{domain.ToolCreateView, `{"name": "v", "sql": "SELECT 2"}`, "select_sql", "SELECT 2"},
		{domain.ToolReadQuery, `{"sql": "SELECT 3"}`, "query", "SELECT 3"},
		{domain.ToolWriteQuery, `{"sql": "CREATE TABLE t (a)"}`, "query", "CREATE TABLE t (a)"},
		{domain.ToolDescribeTable, `{"table_name": "notes"}`, "table", "notes"},
		{domain.ToolSearchText, `{"pattern": "a", "table_name": "notes"}`, "table", "notes"},
	} {
		got, err := decode(json.RawMessage(c.raw), declOf(t, c.tool), l)
		require.NoError(t, err, "%s %s", c.tool, c.raw)
		assert.Equal(t, c.want, got.str(c.name), "%s %s", c.tool, c.raw)
		assert.NotContains(t, got, "sql", "an alias is not passed on under its own name")
	}
	_, err := decode(json.RawMessage(`{"name": "v", "select_sql": "SELECT 1", "query": "SELECT 2"}`), declOf(t, domain.ToolCreateView), l)
	require.ErrorIs(t, err, domain.ErrInvalidArgument)
	assert.EqualError(t, err, `"select_sql" and "query" are the same argument: give only "select_sql"`)
}

// An aliased name is never in the schema: clients see one name per argument.
func TestSchemasShowNoAliases(t *testing.T) {
	for _, d := range domain.Tools() {
		schema := string(inputSchema(d, domain.DefaultLimits()))
		for _, a := range d.Args {
			for _, alias := range a.Aliases {
				assert.NotContains(t, schema, `"`+alias+`":`, "%s.%s", d.Name, a.Name)
			}
		}
	}
}

// Every unknown name close to a declared one is answered with the name
// meant; a name close to none gets the list alone.
func TestUnknownArgumentsNameTheArgumentMeant(t *testing.T) {
	l := domain.DefaultLimits()
	for _, c := range []struct {
		tool, raw, want string
	}{
		{domain.ToolReadQuery, `{"query": "SELECT 1", "limt": 3}`, `unknown argument "limt"; did you mean "limit"? This tool takes limit, offset, query`},
		{domain.ToolReadQuery, `{"query": "SELECT 1", "Offset": 3}`, `did you mean "offset"?`},
		{domain.ToolGetResumeContext, `{"max-events": 3}`, `did you mean "max_events"?`},
		{domain.ToolGetResumeContext, `{"exclude_kind": "x"}`, `did you mean "exclude_kinds"?`},
		{domain.ToolCreateView, `{"name": "v", "select_sql": "SELECT 1", "view_name": "v"}`, `did you mean "name"?`},
		{domain.ToolSearchText, `{"pattern": "a", "table": "t", "column": "c"}`, `did you mean "columns"?`},
		{domain.ToolReadQuery, `{"query": "SELECT 1", "format": "json"}`, `unknown argument "format"; this tool takes limit, offset, query`},
		{domain.ToolReadQuery, `{"query": "SELECT 1", "x": 1}`, `unknown argument "x"; this tool takes limit, offset, query`},
	} {
		_, err := decode(json.RawMessage(c.raw), declOf(t, c.tool), l)
		require.ErrorIs(t, err, domain.ErrInvalidArgument, c.raw)
		assert.Contains(t, err.Error(), c.want, c.raw)
		if !strings.Contains(c.want, "did you mean") {
			assert.NotContains(t, err.Error(), "did you mean", c.raw)
		}
	}
}
