package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// framesTools is a fake ports.Tools: every tool answers at once, and
// refused calls are counted by tool.
type framesTools struct {
	mu       sync.Mutex
	rejected map[string]int
	slow     time.Duration // how long read_query takes
}

var _ ports.Tools = (*framesTools)(nil)

func (f *framesTools) ReadQuery(context.Context, ports.ReadQueryRequest) (string, error) {
	time.Sleep(f.slow)
	return "x\n1\n# 1 rows", nil
}
func (f *framesTools) WriteQuery(context.Context, string) (string, error) { return "ok", nil }
func (f *framesTools) DestructiveQuery(context.Context, string, string) (string, error) {
	return "ok", nil
}
func (f *framesTools) ListTables(context.Context, bool) (string, error)      { return "ok", nil }
func (f *framesTools) DescribeTable(context.Context, string) (string, error) { return "ok", nil }
func (f *framesTools) GetSchema(context.Context, bool) (string, error)       { return "ok", nil }
func (f *framesTools) CreateView(context.Context, ports.CreateViewRequest) (string, error) {
	return "ok", nil
}
func (f *framesTools) AppendEvent(context.Context, string, string) (string, error) { return "ok", nil }
func (f *framesTools) VerifyChain(context.Context, string) (string, error)         { return "ok", nil }
func (f *framesTools) Checkpoint(context.Context, string) (string, error)          { return "ok", nil }
func (f *framesTools) GetResumeContext(context.Context, ports.ResumeRequest) (string, error) {
	return "ok", nil
}
func (f *framesTools) SearchMemory(context.Context, ports.SearchMemoryRequest) (string, error) {
	return "ok", nil
}
func (f *framesTools) ReadResource(context.Context, string) (string, error) { return "ok", nil }
func (f *framesTools) GetPrompt(context.Context, string, map[string]string) (string, error) {
	return "ok", nil
}
func (f *framesTools) Complete(context.Context, string, string, string) (ports.Completion, error) {
	return ports.Completion{}, nil
}
func (f *framesTools) SearchText(context.Context, ports.SearchTextRequest) (string, error) {
	return "ok", nil
}
func (f *framesTools) Snapshot(context.Context, string) (string, error) { return "ok", nil }
func (f *framesTools) Reject(_ context.Context, tool string, err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rejected == nil {
		f.rejected = map[string]int{}
	}
	f.rejected[tool]++
	return err
}
