package mcpserver

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// tableOutputSchema describes structuredContent: the CSV's columns and the
// rows it shows, values typed (see domain.TableData).
func tableOutputSchema() *jsonschema.Schema {
	value := &jsonschema.Schema{
		Description: "null for NULL; a number; a string for text (cut like the CSV cell), for an integer beyond 2^53 and for NaN or Infinity; {\"blob_bytes\": N} for a BLOB (its bytes are never returned)",
		Types:       []string{"null", "number", "string", "object"},
	}
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"columns": {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "Column names, as in the CSV header; empty when the statement returns no rows (a write without RETURNING)."},
			"rows":    {Type: "array", Items: &jsonschema.Schema{Type: "array", Items: value}, Description: "The rows the CSV shows, in order; the CSV's trailer says whether more exist."},
		},
		Required:             []string{"columns", "rows"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// structure adds a call's table to its successful result: a write without
// RETURNING has none, and answers with no columns and no rows.
func structure(res *mcp.CallToolResult, table *domain.TableData) {
	out := map[string]any{"columns": []string{}, "rows": [][]any{}}
	if table != nil {
		out["columns"], out["rows"] = table.Columns, table.Rows
	}
	b, err := json.Marshal(out)
	if err != nil {
		return
	}
	res.StructuredContent = json.RawMessage(b)
}
