package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// rawServer is the binary driven by hand: JSON-RPC lines written to its
// stdin, every byte of its stdout kept for inspection.
type rawServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *e2e.Buffer // every byte the server wrote to stdout
	stderr *e2e.Buffer
	lines  chan []byte // stdout, one line at a time (without the newline)
	exited chan error  // receives cmd.Wait's result once
	nextID int
}

// startRaw starts the binary with args and performs the MCP handshake.
func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	s := &rawServer{
		cmd:    e2e.Command(bin, args...),
		stdout: &e2e.Buffer{},
		stderr: &e2e.Buffer{},
		lines:  make(chan []byte, 64),
		exited: make(chan error, 1),
		nextID: 1,
	}
	s.cmd.Stderr = s.stderr
	var err error
	s.stdin, err = s.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	go func() {
		r := bufio.NewReader(io.TeeReader(out, s.stdout))
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- bytes.TrimSuffix(line, []byte("\n"))
			}
			if err != nil {
				close(s.lines)
				s.exited <- s.cmd.Wait()
				return
			}
		}
	}()
	lines := s.lines
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		go func() {
			for range lines { // let the reader reach Wait
			}
		}()
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.stderr)
		}
	})
	s.request(t, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw", "version": "test"},
	})
	s.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return s
}

// send writes one message as one line.
func (s *rawServer) send(t *testing.T, msg any) {
	t.Helper()
	b, err := json.Marshal(msg)
	require.NoError(t, err)
	_, err = s.stdin.Write(append(b, '\n'))
	require.NoError(t, err)
}

// response is a JSON-RPC response, result kept raw.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// request sends a request with the next id and waits for its response,
// skipping anything else the server sends meanwhile (notifications).
func (s *rawServer) request(t *testing.T, method string, params any) response {
	t.Helper()
	id := s.nextID
	s.nextID++
	s.send(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	want := fmt.Sprint(id)
	deadline := time.After(callTimeout)
	for {
		select {
		case line, ok := <-s.lines:
			require.True(t, ok, "the server closed stdout while %s (id %d) was pending", method, id)
			var r response
			if json.Unmarshal(line, &r) == nil && string(r.ID) == want {
				return r
			}
		case <-deadline:
			require.FailNow(t, "no response", "%s (id %d)", method, id)
		}
	}
}

// callTool sends tools/call and returns the result's text and isError.
func (s *rawServer) callTool(t *testing.T, name string, args map[string]any) (string, bool) {
	t.Helper()
	r := s.request(t, "tools/call", map[string]any{"name": name, "arguments": args})
	require.Nil(t, r.Error, "tools/call %s is answered with a result, not a JSON-RPC error", name)
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	require.Len(t, res.Content, 1, "one text block per result")
	require.Equal(t, "text", res.Content[0].Type)
	return res.Content[0].Text, res.IsError
}

// wait waits up to d for the process to exit and returns its exit status;
// it fails the test if the process is still running after d.
func (s *rawServer) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	// Drain stdout so the reader goroutine can reach Wait.
	timeout := time.After(slack.Of(d)) // d on an idle machine
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				s.lines = nil
			}
		case <-s.exited:
			return s.cmd.ProcessState.ExitCode()
		case <-timeout:
			require.FailNow(t, "the server did not exit", "still running %v after the trigger", d)
		}
	}
}
