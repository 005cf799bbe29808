package mcpserver

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callStackReserve is how much stack a tool call's goroutine is made to
// have free before the call runs: with the few KiB the SDK's frames already
// use, the runtime grows the stack to 64 KiB in one copy, which holds a
// call's deepest path (SQLite's parser and its PRAGMA code, translated from
// C, have frames of several KiB each).
const callStackReserve = 32 << 10

// reserveCallStack grows the calling goroutine's stack in one step, before
// the call goes deep. The SDK runs every call on a new goroutine whose stack
// starts small; left to itself, the runtime doubled it again and again on
// the way down into SQLite, each time copying the stack and adjusting every
// frame on it, about 15% of a 1-row read_query's instructions over stdio
// (callgrind). One doubling at the top, where few frames are on the stack,
// replaces them.
//
// The frame holds an array the size of the reserve; the runtime's stack
// check at the function's entry is what grows the stack. touch is always
// false: the array is then never zeroed nor used, so the call costs the
// growth and nothing else, but the compiler cannot drop the frame.
//
//go:noinline
func reserveCallStack(touch bool) {
	if touch {
		var pad [callStackReserve]byte
		keepStack(pad[:])
	}
}

// keepStack uses b so that the array in reserveCallStack stays.
//
//go:noinline
func keepStack(b []byte) { b[0]++ }

// stackMiddleware reserves a tool call's stack (reserveCallStack) as the
// call enters the server's middleware, the outermost one, where the fewest
// frames are on the stack to copy. Only the first max calls in flight get
// the reserve: calls that wait for a slot of --max-concurrent-calls would
// otherwise each hold 64 KiB while they wait, and a client can send any
// number of them at once. The others grow their stacks as they go, as
// before. max <= 0 means defaultStackReserved.
func stackMiddleware(max int) mcp.Middleware {
	if max <= 0 {
		max = defaultStackReserved
	}
	var inFlight atomic.Int64
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if inFlight.Add(1) <= int64(max) {
					reserveCallStack(false)
				}
				defer inFlight.Add(-1)
			}
			return next(ctx, method, req)
		}
	}
}

// defaultStackReserved bounds the calls whose stack is reserved when the
// number of concurrent calls is unbounded.
const defaultStackReserved = 64
