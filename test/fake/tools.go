package fake

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Tools is a stand-in for the inbound port, for tests of the driving
// adapter's transports (frames, HTTP): every tool answers "ok" at once
// (read_query a one-row table, after Slow), and calls the adapter refused
// before they reached a tool are counted by tool.
type Tools struct {
	// Slow is how long read_query takes.
	Slow time.Duration

	mu       sync.Mutex
	rejected map[string]int
}

var _ ports.Tools = (*Tools)(nil)

// Rejected returns how many refused calls each tool had.
func (f *Tools) Rejected() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.rejected))
	for k, v := range f.rejected {
		out[k] = v
	}
	return out
}

// ReadQuery answers a one-row table after Slow.
func (f *Tools) ReadQuery(context.Context, domain.ReadQueryRequest) (ports.Result, error) {
	time.Sleep(f.Slow)
	return ports.Result{Text: "x\n1\n# 1 rows"}, nil
}

// WriteQuery answers "ok".
func (f *Tools) WriteQuery(context.Context, domain.WriteQueryRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// DestructiveQuery answers "ok".
func (f *Tools) DestructiveQuery(context.Context, domain.DestructiveQueryRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// ListTables answers "ok".
func (f *Tools) ListTables(context.Context, domain.ListTablesRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// DescribeTable answers "ok".
func (f *Tools) DescribeTable(context.Context, domain.DescribeTableRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// GetSchema answers "ok".
func (f *Tools) GetSchema(context.Context, domain.GetSchemaRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// CreateView answers "ok".
func (f *Tools) CreateView(context.Context, domain.CreateViewRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// RetractEvent answers "ok".
func (f *Tools) RetractEvent(context.Context, domain.RetractEventRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// AppendEvent answers "ok".
func (f *Tools) AppendEvent(context.Context, domain.AppendEventRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// VerifyChain answers "ok".
func (f *Tools) VerifyChain(context.Context, domain.VerifyChainRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// Checkpoint answers "ok".
func (f *Tools) Checkpoint(context.Context, domain.CheckpointRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// GetResumeContext answers "ok".
func (f *Tools) GetResumeContext(context.Context, domain.GetResumeContextRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// SearchMemory answers "ok".
func (f *Tools) SearchMemory(context.Context, domain.SearchMemoryRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// SearchText answers "ok".
func (f *Tools) SearchText(context.Context, domain.SearchTextRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// Snapshot answers "ok".
func (f *Tools) Snapshot(context.Context, domain.SnapshotRequest) (ports.Result, error) {
	return ports.Result{Text: "ok"}, nil
}

// ReadResource answers "ok".
func (f *Tools) ReadResource(context.Context, string) (string, error) { return "ok", nil }

// GetPrompt answers "ok".
func (f *Tools) GetPrompt(context.Context, string, map[string]string) (string, error) {
	return "ok", nil
}

// Complete offers nothing.
func (f *Tools) Complete(context.Context, string, string, string) (ports.Completion, error) {
	return ports.Completion{}, nil
}

// Reject counts the refusal under tool and returns err.
func (f *Tools) Reject(_ context.Context, tool string, err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rejected == nil {
		f.rejected = map[string]int{}
	}
	f.rejected[tool]++
	return err
}
