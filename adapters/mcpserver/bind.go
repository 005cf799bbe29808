package mcpserver

import (
	"context"
	"reflect"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// binding is one tool's method of the inbound port: the request type it
// takes and how to call it with a decoded request of that type.
type binding struct {
	request reflect.Type
	call    func(ctx context.Context, t ports.Tools, req reflect.Value) (ports.Result, error)
}

// bind binds a method of the inbound port, given as a method expression
// (ports.Tools.ReadQuery): its request type is the compiler's to check.
func bind[R any](method func(ports.Tools, context.Context, R) (ports.Result, error)) binding {
	return binding{request: reflect.TypeFor[R](), call: func(ctx context.Context, t ports.Tools, req reflect.Value) (ports.Result, error) {
		return method(t, ctx, req.Interface().(R))
	}}
}

// calls binds each declared tool to its method of the inbound port;
// register checks that the method takes the tool's declared request type.
var calls = map[string]binding{
	domain.ToolReadQuery:        bind(ports.Tools.ReadQuery),
	domain.ToolListTables:       bind(ports.Tools.ListTables),
	domain.ToolDescribeTable:    bind(ports.Tools.DescribeTable),
	domain.ToolGetSchema:        bind(ports.Tools.GetSchema),
	domain.ToolSearchText:       bind(ports.Tools.SearchText),
	domain.ToolVerifyChain:      bind(ports.Tools.VerifyChain),
	domain.ToolGetResumeContext: bind(ports.Tools.GetResumeContext),
	domain.ToolSearchMemory:     bind(ports.Tools.SearchMemory),
	domain.ToolWriteQuery:       bind(ports.Tools.WriteQuery),
	domain.ToolDestructiveQuery: bind(ports.Tools.DestructiveQuery),
	domain.ToolCreateView:       bind(ports.Tools.CreateView),
	domain.ToolAppendEvent:      bind(ports.Tools.AppendEvent),
	domain.ToolRetractEvent:     bind(ports.Tools.RetractEvent),
	domain.ToolCheckpoint:       bind(ports.Tools.Checkpoint),
	domain.ToolSnapshot:         bind(ports.Tools.Snapshot),
}
