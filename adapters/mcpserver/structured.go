package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
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

// tableCollector receives the table a call renders.
type tableCollector struct {
	mu   sync.Mutex
	data *domain.TableData
}

// withTables puts a collector in ctx when structured results are on and
// the tool answers with a table (domain.Tool.Table).
func (s *Server) withTables(ctx context.Context, table bool) (context.Context, *tableCollector) {
	if !s.opts.Structured || !table {
		return ctx, nil
	}
	c := &tableCollector{}
	return ports.WithTableSink(ctx, func(d *domain.TableData) {
		c.mu.Lock()
		c.data = d
		c.mu.Unlock()
	}), c
}

// structure adds the collected table to a successful result.
func (c *tableCollector) structure(res *mcp.CallToolResult) {
	if c == nil || res.IsError {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]any{"columns": []string{}, "rows": [][]any{}}
	if c.data != nil {
		out["columns"], out["rows"] = c.data.Columns, c.data.Rows
	}
	b, err := json.Marshal(out)
	if err != nil {
		return
	}
	res.StructuredContent = json.RawMessage(b)
}
