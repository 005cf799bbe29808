package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// register adds the tools this server offers, each as its declaration
// (domain.Tools) says, bound to its method of the inbound port (calls).
func register(s *Server, t ports.Tools, o Options) {
	for _, d := range domain.OfferedTools(o.ReadOnly, o.Memory) {
		b, ok := calls[d.Name]
		if !ok {
			panic(fmt.Sprintf("mcpserver: tool %s is declared but bound to no method of ports.Tools", d.Name))
		}
		r := requestOf(d)
		if b.request != r.typ {
			panic(fmt.Sprintf("mcpserver: tool %s declares the request %v, but its method takes %v", d.Name, r.typ, b.request))
		}
		s.add(t, r, b)
	}
}

// mcpTool is the tool as MCP lists it.
func mcpTool(d domain.Tool, o Options) *mcp.Tool {
	t := &mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description(o.Limits, o.ReadOnly), Annotations: annotations(d), InputSchema: inputSchema(d, o.Limits)}
	if o.Structured && d.Table {
		t.OutputSchema = tableOutputSchema()
	}
	return t
}

// annotations reads the hints as the MCP spec defines them off the
// declaration: destructiveHint is true when a tool "may perform destructive
// updates" (change or remove what exists) and false when its updates are
// only additive; idempotentHint when calling again with the same arguments
// has no further effect, which only the read tools promise. openWorldHint
// is false everywhere: the tools touch one local file and nothing else.
// Each carries the tool's title, which clients show instead of its name
// (docs/decisions.md#tool-annotations).
func annotations(d domain.Tool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title: d.Title, ReadOnlyHint: d.ReadOnly(), IdempotentHint: d.ReadOnly(),
		DestructiveHint: ptr(d.Overwrites()), OpenWorldHint: ptr(false),
	}
}

// inputSchema is the JSON schema of a tool's arguments: their types,
// which are required, and the defaults and bounds under the live limits.
// Properties not declared are refused. It is a plain struct that
// encoding/json writes by its fields: the SDK marshals a *jsonschema.Schema
// by reflection through its MarshalJSON for every tools/list, which made
// building the server most of the time from start to the first tools/list
// after the Go runtime's own, and bytes made ahead (a json.RawMessage) are
// run through encoding/json's compactor, and parsed, when the SDK adds the
// tool, and compacted again for every tools/list
// (docs/decisions.md#start-up).
func inputSchema(d domain.Tool, l domain.Limits) *objectSchema {
	s := &objectSchema{Type: "object", Properties: make(map[string]propertySchema, len(d.Args))}
	for _, a := range d.Args {
		// A list is "array" alone: a union with "null" makes some clients
		// render a text box and send a string.
		p := propertySchema{Type: jsonType(a.Type), Description: a.Doc}
		if a.Type == domain.ArgStrings {
			p.Items = &propertySchema{Type: "string"}
		}
		if a.Default != nil {
			b, err := json.Marshal(a.Default(l))
			if err != nil {
				panic(fmt.Sprintf("mcpserver: default of %s.%s: %v", d.Name, a.Name, err))
			}
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

// objectSchema is a tool's input schema, the subset of JSON Schema
// inputSchema writes, in the key order of the jsonschema package the
// server used before (so tools/list is byte for byte what it was).
type objectSchema struct {
	Type       string                    `json:"type"`
	Properties map[string]propertySchema `json:"properties"`
	Required   []string                  `json:"required,omitempty"`
	// AdditionalProperties is always false: no undeclared argument.
	AdditionalProperties bool `json:"additionalProperties"`
}

// propertySchema is one argument's schema.
type propertySchema struct {
	Type        string          `json:"type"`
	Items       *propertySchema `json:"items,omitempty"`
	Description string          `json:"description,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
}

// jsonType is an argument type's name in JSON Schema.
func jsonType(t domain.ArgType) string {
	switch t {
	case domain.ArgInteger:
		return "integer"
	case domain.ArgBoolean:
		return "boolean"
	case domain.ArgStrings:
		return "array"
	}
	return "string"
}

func ptr[T any](v T) *T { return &v }

// add registers one tool. Unlike mcp.AddTool, it decodes and checks the
// arguments itself, so a malformed call is answered with a message that
// names the argument and is written to the audit log like any other call;
// the SDK would reject it before any audit could happen.
func (s *Server) add(tools ports.Tools, r request, b binding) {
	d := r.tool
	s.names[d.Name] = true
	s.AddTool(mcpTool(d, s.opts), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := s.callContext(ctx)
		defer cancel()
		ctx = s.sessionContext(ctx, req.Session)
		ctx = s.provenanceContext(ctx, req) // provenance.go
		ctx, round := s.withElicitation(ctx, req)
		ctx, finish := withProgress(ctx, req)
		defer finish()
		in, err := r.decode(req.Params.Arguments, s.opts.Limits)
		if err != nil {
			return result("", tools.Reject(ctx, d.Name, err)), nil
		}
		out, err := b.call(ctx, tools, in)
		if q := round.result(); q != nil {
			return q, nil // the question goes with the result; the retry answers
		}
		if err != nil {
			return result("", err), nil
		}
		s.notifyChanged(ctx, d.Name) // memory.go
		res := result(out.Text, nil)
		if s.opts.Structured && d.Table {
			structure(res, out.Table)
		}
		return res, nil
	})
}
