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
	cases := []struct {
		name, raw string
		want      domain.ReadQueryRequest
		err       bool
	}{
		{"defaults stay", `{"query": "SELECT 1"}`, domain.ReadQueryRequest{Query: "SELECT 1", Limit: 7, Offset: 0}, false},
		{"null keeps the default", `{"query": "SELECT 1", "limit": null}`, domain.ReadQueryRequest{Query: "SELECT 1", Limit: 7, Offset: 0}, false},
		{"values override", `{"query": "q", "limit": 3, "offset": 2}`, domain.ReadQueryRequest{Query: "q", Limit: 3, Offset: 2}, false},
		{"missing required", `{"limit": 3}`, domain.ReadQueryRequest{}, true},
		{"null required", `{"query": null}`, domain.ReadQueryRequest{}, true},
		{"unknown argument", `{"query": "q", "sql": "x"}`, domain.ReadQueryRequest{}, true},
		{"wrong type", `{"query": "q", "limit": "ten"}`, domain.ReadQueryRequest{}, true},
		{"a fraction is no integer", `{"query": "q", "limit": 4.5}`, domain.ReadQueryRequest{}, true},
		{"not an object", `[1]`, domain.ReadQueryRequest{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decode(t, domain.ToolReadQuery, c.raw, l)
			if c.err {
				assert.ErrorIs(t, err, domain.ErrInvalidArgument)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// decode decodes raw as a call of tool, into the tool's request type.
func decode(t *testing.T, tool, raw string, l domain.Limits) (any, error) {
	t.Helper()
	for _, d := range domain.Tools() {
		if d.Name == tool {
			v, err := requestOf(d).decode(json.RawMessage(raw), l)
			if err != nil {
				return nil, err
			}
			return v.Interface(), nil
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil, nil
}

// Every tool's calls decode into its own request type, every field filled:
// the declared defaults where the call leaves an argument out, and each
// given value into the field its name tags (a field the decoder skipped or
// filled from another argument would keep another value).
func TestDecodeFillsEveryToolsRequest(t *testing.T) {
	l := domain.DefaultLimits()
	for _, d := range domain.Tools() {
		given, want := map[string]any{}, map[string]any{}
		for i, a := range d.Args {
			switch a.Type {
			case domain.ArgInteger:
				lo := 1 // an unbounded integer (an id): the core checks it
				if a.Bounds != nil {
					lo, _ = a.Bounds(l)
				}
				given[a.Name], want[a.Name] = lo+i, lo+i
			case domain.ArgBoolean:
				given[a.Name], want[a.Name] = a.Value(l) != true, a.Value(l) != true
			case domain.ArgStrings:
				given[a.Name], want[a.Name] = []string{a.Name}, []string{a.Name}
			default:
				given[a.Name], want[a.Name] = "v-"+a.Name, "v-"+a.Name
			}
		}
		raw, err := json.Marshal(given)
		require.NoError(t, err)
		got, err := decode(t, d.Name, string(raw), l)
		require.NoError(t, err, d.Name)
		back, err := json.Marshal(got)
		require.NoError(t, err)
		wantJSON, err := json.Marshal(want)
		require.NoError(t, err)
		assert.JSONEq(t, string(wantJSON), string(back), d.Name)
		assert.IsType(t, d.Request, got, d.Name)
	}
}

func TestEveryToolHasADescriptionAndInstructionsNameTheResumeTool(t *testing.T) {
	for _, d := range domain.Tools() {
		assert.Greater(t, len(d.Describe(domain.DefaultLimits())), 80, d.Name)
	}
	assert.Contains(t, instructions(false, true), domain.ToolGetResumeContext)
	assert.NotContains(t, instructions(true, true), domain.ToolWriteQuery, "read-only mode offers no write tools")
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
		got, err := decode(t, c.tool, c.raw, l)
		require.NoError(t, err, "%s %s", c.tool, c.raw)
		b, err := json.Marshal(got)
		require.NoError(t, err)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(b, &fields))
		assert.Equal(t, c.want, fields[c.name], "%s %s", c.tool, c.raw)
	}
	_, err := decode(t, domain.ToolCreateView, `{"name": "v", "select_sql": "SELECT 1", "query": "SELECT 2"}`, l)
	require.ErrorIs(t, err, domain.ErrInvalidArgument)
	assert.EqualError(t, err, `"select_sql" and "query" are the same argument: give only "select_sql"`)
}

// An aliased name is never in the schema: clients see one name per argument.
func TestSchemasShowNoAliases(t *testing.T) {
	for _, d := range domain.Tools() {
		b, err := json.Marshal(inputSchema(d, domain.DefaultLimits()))
		require.NoError(t, err)
		schema := string(b)
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
		_, err := decode(t, c.tool, c.raw, l)
		require.ErrorIs(t, err, domain.ErrInvalidArgument, c.raw)
		assert.Contains(t, err.Error(), c.want, c.raw)
		if !strings.Contains(c.want, "did you mean") {
			assert.NotContains(t, err.Error(), "did you mean", c.raw)
		}
	}
}
