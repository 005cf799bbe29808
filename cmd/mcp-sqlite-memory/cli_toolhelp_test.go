package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestCallToolHelpShowsTheToolsArguments: call TOOL --help prints that
// tool's description and every argument with its type, whether it is
// required, its bounds and default, as its declaration says; no database
// is needed. An unknown tool names the tools.
func TestCallToolHelpShowsTheToolsArguments(t *testing.T) {
	l := domain.DefaultLimits()
	for _, tool := range domain.Tools() {
		code, out, errOut := runCLI(t, "call", tool.Name, "--help")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, tool.Title, tool.Name)
		assert.Contains(t, out, strings.Fields(tool.Describe(l))[0], tool.Name)
		for _, a := range tool.Args {
			assert.Contains(t, out, "  "+a.Name+"  (", "%s.%s", tool.Name, a.Name)
			if a.Required {
				assert.Regexp(t, `  `+a.Name+`  \([a-z ]+, required`, out, "%s.%s", tool.Name, a.Name)
			}
			if a.Bounds != nil {
				lo, hi := a.Bounds(l)
				assert.Contains(t, out, fmt.Sprintf("%d to %d", lo, hi), "%s.%s", tool.Name, a.Name)
			}
			if a.Default != nil {
				v, _ := json.Marshal(a.Default(l))
				assert.Contains(t, out, "default "+string(v), "%s.%s", tool.Name, a.Name)
			}
			for _, alias := range a.Aliases {
				assert.Contains(t, out, alias, "%s.%s", tool.Name, a.Name)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			assert.LessOrEqual(t, len([]rune(line)), 90, "%s: %q", tool.Name, line)
		}
	}
	code, _, errOut := runCLI(t, "call", "no_such_tool", "--help")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `no tool "no_such_tool"; the tools are read_query, `)
}

// TestSubcommandHelpListsJSONOnce: each subcommand's help names --json
// once: its own line when it says what the document holds, else the
// generic one.
func TestSubcommandHelpListsJSONOnce(t *testing.T) {
	for _, c := range commands {
		if c.noDB {
			continue
		}
		code, out, errOut := runCLI(t, c.name, "--help")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, 1, strings.Count(out, "\n  --json "), "%s --help:\n%s", c.name, out)
	}
}

// TestLogJSONGivesDetailAsAnObject: log --json prints a row's detail as
// the JSON object the server stored, so a script reads detail.snapshot
// without decoding a string; a detail that is no object stays a string.
func TestLogJSONGivesDetailAsAnObject(t *testing.T) {
	obj, text, query := `{"snapshot": "a<b.db", "late": true}`, "not json", "SELECT 1 < 2"
	var buf strings.Builder
	assert.NoError(t, printJSON(&buf, map[string]any{"rows": []auditRow{
		{ID: 1, Tool: "destructive_query", OK: true, Query: &query, Detail: &obj},
		{ID: 2, Tool: "read_query", Detail: &text},
		{ID: 3, Tool: "read_query"},
	}}))
	var got struct {
		Rows []map[string]any `json:"rows"`
	}
	assert.NoError(t, json.Unmarshal([]byte(buf.String()), &got), buf.String())
	if assert.Len(t, got.Rows, 3) {
		assert.Equal(t, map[string]any{"snapshot": "a<b.db", "late": true}, got.Rows[0]["detail"])
		assert.Equal(t, "SELECT 1 < 2", got.Rows[0]["query"])
		assert.Equal(t, "not json", got.Rows[1]["detail"])
		assert.Nil(t, got.Rows[2]["detail"])
		assert.Contains(t, got.Rows[2], "detail", "a missing detail is null, as before")
	}
	assert.Contains(t, buf.String(), `"SELECT 1 < 2"`, "no HTML escaping")
}
