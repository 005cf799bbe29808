package mcpserver

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
)

// callStacks runs n calls of method through stackMiddleware(max) at once,
// each parked in the handler, and returns the stack memory they hold, per
// call: what the runtime has given their goroutines' stacks
// (MemStats.StackInuse, after a GC has returned idle stack spans).
func callStacks(t *testing.T, method string, max, n int) uint64 {
	t.Helper()
	release := make(chan struct{})
	var parked, done sync.WaitGroup
	h := stackMiddleware(max)(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		parked.Done()
		<-release
		return nil, nil
	})
	stackInuse := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.StackInuse
	}
	before := stackInuse()
	parked.Add(n)
	done.Add(n)
	for range n {
		go func() {
			defer done.Done()
			_, _ = h(context.Background(), method, nil)
		}()
	}
	parked.Wait()
	after := stackInuse()
	close(release)
	done.Wait()
	if after < before {
		return 0
	}
	return (after - before) / uint64(n)
}

// A tool call's goroutine holds the grown stack from the moment it enters
// the middleware: at least the reserve, where a goroutine that is not
// reserved keeps its starting stack of a few KiB. Only the first max calls
// in flight get it.
// Should reserveCallStack stop growing the stack (the compiler dropping the
// array, a smaller reserve), the first check fails.
func TestStackMiddlewareGrowsAToolCallsStackOnEntry(t *testing.T) {
	const n = 200
	reserved := callStacks(t, "tools/call", n, n)
	plain := callStacks(t, "tools/list", n, n)
	bounded := callStacks(t, "tools/call", 10, n)
	t.Logf("stack per call: reserved %d KiB, other methods %d KiB, beyond max %d KiB", reserved>>10, plain>>10, bounded>>10)
	assert.GreaterOrEqual(t, reserved, uint64(callStackReserve)*3/4, "a tool call's stack is grown to hold the reserve")
	assert.Less(t, plain, uint64(callStackReserve)/2, "other methods are left alone")
	assert.Less(t, bounded, uint64(callStackReserve)/2, "beyond max calls in flight, no reserve")
}
