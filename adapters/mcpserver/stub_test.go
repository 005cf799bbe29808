package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// stubTools is a hand-written ports.Tools: it records which method a call
// reached and the arguments it got, by their declared names, and answers
// with err when set. The MCP adapter is tested against it without SQLite.
type stubTools struct {
	mu       sync.Mutex
	tool     string
	got      map[string]any
	rejected error
	err      error
}

var _ ports.Tools = (*stubTools)(nil)

func (s *stubTools) record(tool string, got map[string]any) (ports.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tool, s.got = tool, got
	if s.err != nil {
		return ports.Result{}, s.err
	}
	return ports.Result{Text: "stub answer from " + tool}, nil
}

func (s *stubTools) last() (string, map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tool, s.got, s.rejected
}

func (s *stubTools) ReadQuery(_ context.Context, r domain.ReadQueryRequest) (ports.Result, error) {
	return s.record(domain.ToolReadQuery, map[string]any{"query": r.Query, "limit": r.Limit, "offset": r.Offset})
}

func (s *stubTools) WriteQuery(_ context.Context, r domain.WriteQueryRequest) (ports.Result, error) {
	return s.record(domain.ToolWriteQuery, map[string]any{"query": r.Query})
}

func (s *stubTools) DestructiveQuery(_ context.Context, r domain.DestructiveQueryRequest) (ports.Result, error) {
	return s.record(domain.ToolDestructiveQuery, map[string]any{"query": r.Query, "reason": r.Reason})
}

func (s *stubTools) ListTables(_ context.Context, r domain.ListTablesRequest) (ports.Result, error) {
	return s.record(domain.ToolListTables, map[string]any{"include_row_counts": r.IncludeRowCounts})
}

func (s *stubTools) DescribeTable(_ context.Context, r domain.DescribeTableRequest) (ports.Result, error) {
	return s.record(domain.ToolDescribeTable, map[string]any{"table": r.Table})
}

func (s *stubTools) GetSchema(_ context.Context, r domain.GetSchemaRequest) (ports.Result, error) {
	return s.record(domain.ToolGetSchema, map[string]any{"include_system": r.IncludeSystem})
}

func (s *stubTools) CreateView(_ context.Context, r domain.CreateViewRequest) (ports.Result, error) {
	return s.record(domain.ToolCreateView, map[string]any{"name": r.Name, "select_sql": r.SelectSQL, "description": r.Description, "replace": r.Replace})
}

func (s *stubTools) AppendEvent(_ context.Context, r domain.AppendEventRequest) (ports.Result, error) {
	return s.record(domain.ToolAppendEvent, map[string]any{"content": r.Content, "kind": r.Kind})
}

func (s *stubTools) RetractEvent(_ context.Context, r domain.RetractEventRequest) (ports.Result, error) {
	return s.record(domain.ToolRetractEvent, map[string]any{"id": r.ID, "reason": r.Reason})
}

func (s *stubTools) VerifyChain(_ context.Context, r domain.VerifyChainRequest) (ports.Result, error) {
	return s.record(domain.ToolVerifyChain, map[string]any{"expected_head": r.ExpectedHead})
}

func (s *stubTools) Checkpoint(_ context.Context, r domain.CheckpointRequest) (ports.Result, error) {
	return s.record(domain.ToolCheckpoint, map[string]any{"summary": r.Summary})
}

func (s *stubTools) GetResumeContext(_ context.Context, r domain.GetResumeContextRequest) (ports.Result, error) {
	return s.record(domain.ToolGetResumeContext, map[string]any{"max_events": r.MaxEvents, "max_bytes": r.MaxBytes, "exclude_kinds": r.ExcludeKinds})
}

func (s *stubTools) SearchMemory(_ context.Context, r domain.SearchMemoryRequest) (ports.Result, error) {
	return s.record(domain.ToolSearchMemory, map[string]any{
		"query": r.Query, "kinds": r.Kinds, "session": r.Session, "since": r.Since, "limit": r.Limit,
	})
}

func (s *stubTools) ReadResource(_ context.Context, uri string) (string, error) {
	res, err := s.record(domain.AuditResourceRead, map[string]any{"uri": uri})
	return res.Text, err
}

func (s *stubTools) GetPrompt(_ context.Context, name string, args map[string]string) (string, error) {
	res, err := s.record(domain.AuditPromptGet, map[string]any{"name": name, "args": args})
	return res.Text, err
}

func (s *stubTools) Complete(_ context.Context, prompt, argument, value string) (ports.Completion, error) {
	_, err := s.record(domain.AuditComplete, map[string]any{"prompt": prompt, "argument": argument, "value": value})
	return ports.Completion{Values: []string{value + "x"}}, err
}

func (s *stubTools) SearchText(_ context.Context, r domain.SearchTextRequest) (ports.Result, error) {
	return s.record(domain.ToolSearchText, map[string]any{
		"pattern": r.Pattern, "table": r.Table, "columns": r.Columns, "where": r.Where, "key_column": r.KeyColumn,
		"limit": r.Limit, "ignore_case": r.IgnoreCase, "fixed_strings": r.FixedStrings, "context_chars": r.ContextChars,
	})
}

func (s *stubTools) Snapshot(_ context.Context, r domain.SnapshotRequest) (ports.Result, error) {
	return s.record(domain.ToolSnapshot, map[string]any{"reason": r.Reason})
}

func (s *stubTools) Reject(_ context.Context, tool string, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tool, s.got, s.rejected = tool, nil, err
	return err
}

// stubConnect serves tools over in-memory transports and returns a client.
func stubConnect(t *testing.T, tools ports.Tools, o mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	server := mcpserver.New(tools, o)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stub", Version: "test"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func stubCall(t *testing.T, cs *mcp.ClientSession, tool string, a map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: a})
	require.NoError(t, err)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// stubValue is a value for a declared argument that differs from its
// default and from every other argument's of the tool (i is its index).
func stubValue(a domain.Arg, i int, l domain.Limits) any {
	switch a.Type {
	case domain.ArgInteger:
		lo, hi := 0, 1<<20
		if a.Bounds != nil {
			lo, hi = a.Bounds(l)
		}
		return min(lo+2+i, hi)
	case domain.ArgBoolean:
		return !a.Value(l).(bool)
	case domain.ArgStrings:
		return []string{"v-" + a.Name, "w-" + a.Name}
	}
	return "v-" + a.Name
}

// TestEveryToolReachesItsPortMethodWithItsArguments calls every declared
// tool twice through the MCP server, backed by the stub: with a value for
// every argument, and with the required ones only. The stub must receive
// the call on the tool's own method, each argument in its own field, and
// the declared defaults for the arguments left out.
func TestEveryToolReachesItsPortMethodWithItsArguments(t *testing.T) {
	for _, l := range []domain.Limits{domain.DefaultLimits(), stubSmallLimits()} {
		stub := &stubTools{}
		cs := stubConnect(t, stub, mcpserver.Options{Limits: l})
		for _, d := range domain.Tools() {
			all, want, required := map[string]any{}, map[string]any{}, map[string]any{}
			defaults := map[string]any{}
			for i, a := range d.Args {
				v := stubValue(a, i, l)
				all[a.Name], want[a.Name] = v, v
				if a.Required {
					required[a.Name], defaults[a.Name] = v, v
				} else {
					defaults[a.Name] = a.Value(l)
				}
			}
			out, isErr := stubCall(t, cs, d.Name, all)
			assert.False(t, isErr, "%s: %s", d.Name, out)
			assert.Equal(t, "stub answer from "+d.Name, out)
			tool, got, _ := stub.last()
			assert.Equal(t, d.Name, tool)
			assert.Equal(t, want, got, "%s: every argument reaches its own field", d.Name)

			_, isErr = stubCall(t, cs, d.Name, required)
			assert.False(t, isErr, d.Name)
			tool, got, _ = stub.last()
			assert.Equal(t, d.Name, tool)
			assert.Equal(t, defaults, got, "%s: arguments left out get their declared defaults (max_rows %d)", d.Name, l.MaxRows)
		}
	}
}

func stubSmallLimits() domain.Limits {
	l := domain.DefaultLimits()
	l.MaxRows, l.DefaultLimit = 5, 3
	return l
}

// TestMalformedCallsAreRejectedThroughThePort: a call whose arguments do
// not decode never reaches its tool's method; the port's Reject gets it,
// under the tool's name, so the core audits it.
func TestMalformedCallsAreRejectedThroughThePort(t *testing.T) {
	stub := &stubTools{}
	cs := stubConnect(t, stub, mcpserver.Options{Limits: domain.DefaultLimits()})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{domain.ToolReadQuery, map[string]any{}, `missing required argument "query"`},
		{domain.ToolReadQuery, map[string]any{"query": "q", "limit": "ten"}, `argument "limit" must be an integer, got string`},
		{domain.ToolSearchText, map[string]any{"pattern": "p", "table": "t", "columns": "c"}, `argument "columns" must be an array, got string`},
		{domain.ToolListTables, map[string]any{"include_row_counts": 1}, `argument "include_row_counts" must be a boolean, got number`},
		{domain.ToolSnapshot, map[string]any{"why": "x"}, `unknown argument "why"; this tool takes reason`},
	} {
		out, isErr := stubCall(t, cs, c.tool, c.args)
		assert.True(t, isErr, c.tool)
		assert.Equal(t, c.want, out)
		tool, got, rejected := stub.last()
		assert.Equal(t, c.tool, tool)
		assert.Nil(t, got, "%s: the tool's method is not called", c.tool)
		assert.ErrorIs(t, rejected, domain.ErrInvalidArgument)
	}
}

// TestPortErrorsBecomeToolErrors: the core's error text is the tool
// error's text, never a protocol error.
func TestPortErrorsBecomeToolErrors(t *testing.T) {
	stub := &stubTools{err: domain.Errorf(domain.ErrPolicy, "DELETE is not allowed in %s; use %s", domain.ToolWriteQuery, domain.ToolDestructiveQuery)}
	cs := stubConnect(t, stub, mcpserver.Options{Limits: domain.DefaultLimits()})
	out, isErr := stubCall(t, cs, domain.ToolWriteQuery, map[string]any{"query": "DELETE FROM t"})
	assert.True(t, isErr)
	assert.Equal(t, stub.err.Error(), out)
	stub.err = errors.New("a bare error")
	out, isErr = stubCall(t, cs, domain.ToolReadQuery, map[string]any{"query": "q"})
	assert.True(t, isErr)
	assert.Equal(t, "a bare error", out)
}

// TestModesListTheDeclaredTools: the tools listed are the declared ones a
// mode offers, with the declaration's titles and hints.
func TestModesListTheDeclaredTools(t *testing.T) {
	for _, c := range []struct{ readOnly, memory bool }{{false, false}, {true, false}, {true, true}} {
		t.Run(fmt.Sprintf("read-only=%v memory=%v", c.readOnly, c.memory), func(t *testing.T) {
			cs := stubConnect(t, &stubTools{}, mcpserver.Options{Limits: domain.DefaultLimits(), ReadOnly: c.readOnly, Memory: c.memory})
			res, err := cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var got, want []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
			}
			for _, d := range domain.OfferedTools(c.readOnly, c.memory) {
				want = append(want, d.Name)
				i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == d.Name })
				if !assert.GreaterOrEqual(t, i, 0, d.Name) {
					continue
				}
				a := res.Tools[i].Annotations
				assert.Equal(t, d.Title, res.Tools[i].Title)
				assert.Equal(t, d.Title, a.Title)
				assert.Equal(t, d.ReadOnly(), a.ReadOnlyHint, d.Name)
				assert.Equal(t, d.Overwrites(), *a.DestructiveHint, d.Name)
			}
			assert.ElementsMatch(t, want, got)
		})
	}
}
