package e2e_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowQuery runs until the query timeout (10 s by default) interrupts it.
const slowQuery = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

// exitBudget is the limit (docs/decisions.md#details) on how long the server may take to exit.
const exitBudget = 3 * time.Second

// TestServerExitsPromptly pins docs/decisions.md#details: the server exits with status 0
// within 3 s of its stdin closing, and within 3 s of SIGTERM, whatever it
// was doing.
func TestServerExitsPromptly(t *testing.T) {
	t.Parallel()
	closeStdin := func(t *testing.T, s *rawServer) { require.NoError(t, s.stdin.Close()) }
	sigterm := func(t *testing.T, s *rawServer) { require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM)) }
	cases := []struct {
		name    string
		busy    func(t *testing.T, s *rawServer)
		trigger func(t *testing.T, s *rawServer)
	}{
		{name: "stdin closed while idle", trigger: closeStdin},
		{name: "stdin closed after calls", busy: someCalls, trigger: closeStdin},
		{name: "stdin closed during a running query", busy: startSlowQuery, trigger: closeStdin},
		{name: "SIGTERM while idle", trigger: sigterm},
		{name: "SIGTERM after calls", busy: someCalls, trigger: sigterm},
		{name: "SIGTERM during a running query", busy: startSlowQuery, trigger: sigterm},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startRaw(t, "--db", newDB(t))
			if tc.busy != nil {
				tc.busy(t, s)
			}
			began := time.Now()
			tc.trigger(t, s)
			assert.Equal(t, 0, s.wait(t, exitBudget), "exit status")
			t.Logf("exited %v after the trigger", time.Since(began).Round(time.Millisecond))
		})
	}
}

// someCalls makes a write and a read, so the server has open connections.
func someCalls(t *testing.T, s *rawServer) {
	t.Helper()
	out, isErr := s.callTool(t, "append_event", map[string]any{"content": "about to stop"})
	require.False(t, isErr, out)
	out, isErr = s.callTool(t, "read_query", map[string]any{"query": "SELECT * FROM memory_events"})
	require.False(t, isErr, out)
}

// startSlowQuery sends a query that runs for the whole query timeout and
// returns without waiting for its answer, once the server is running it.
func startSlowQuery(t *testing.T, s *rawServer) {
	t.Helper()
	cpu := signalCPUStart(t, s.cmd.Process.Pid)
	s.send(t, map[string]any{"jsonrpc": "2.0", "id": 1000, "method": "tools/call",
		"params": map[string]any{"name": "read_query", "arguments": map[string]any{"query": slowQuery}}})
	signalQueryRunning(t, s.cmd.Process.Pid, cpu, 5*time.Second)
}
