package mcpserver

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// drainWait bounds how long the end of stdin waits for answers to requests
// already read: long enough for any quick call, short enough that the
// server still exits within 3 s of its input closing (SPEC A8). A call
// still running after it is cancelled.
const drainWait = 1500 * time.Millisecond

// exchange counts the requests handed to the SDK and the answers it wrote,
// so that the end of the input can wait for the answers still due. A
// client that writes its requests and closes stdin at once (a script
// piping into the server) then gets every answer.
type exchange struct {
	mu       sync.Mutex
	asked    int
	answered int
	changed  chan struct{} // closed and replaced on every answer
}

func newExchange() *exchange { return &exchange{changed: make(chan struct{})} }

// ask records n more requests awaiting an answer.
func (x *exchange) ask(n int) {
	if x == nil || n == 0 {
		return
	}
	x.mu.Lock()
	x.asked += n
	x.mu.Unlock()
}

// answer records one answer written.
func (x *exchange) answer() {
	x.mu.Lock()
	x.answered++
	close(x.changed)
	x.changed = make(chan struct{})
	x.mu.Unlock()
}

// drain waits until every request asked so far is answered, or d passes.
func (x *exchange) drain(d time.Duration) {
	if x == nil {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		x.mu.Lock()
		done, changed := x.answered >= x.asked, x.changed
		x.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		}
	}
}

// lockedWriter serialises writes to stdout: the SDK writes each message
// with one Write call, and the frame guard writes its own answers between
// them. It counts the SDK's answers for the exchange.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
	x  *exchange
}

// Write writes one message.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if err == nil && l.x != nil && isResponse(p) {
		l.x.answer()
	}
	return n, err
}

// Close closes stdout.
func (l *lockedWriter) Close() error { return l.w.Close() }

// sdkResponse is how the SDK begins every message that carries an id.
var sdkResponse = []byte(`{"jsonrpc":"2.0","id":`)

// isResponse reports whether an outgoing message answers a request (rather
// than being a request or notification of the server's own). The SDK
// writes `{"jsonrpc":"2.0","id":<id>,"result"|"error"...` for answers, so
// the id is skipped and the next key read; any other shape is decoded.
func isResponse(msg []byte) bool {
	if rest, ok := bytes.CutPrefix(msg, sdkResponse); ok {
		if i := idEnd(rest); i > 0 {
			rest = rest[i:]
			return bytes.HasPrefix(rest, []byte(`,"result"`)) || bytes.HasPrefix(rest, []byte(`,"error"`))
		}
	}
	m, err := jsonrpc.DecodeMessage(bytes.TrimSpace(msg))
	if err != nil {
		return false
	}
	_, ok := m.(*jsonrpc.Response)
	return ok
}

// idEnd returns the length of the JSON number or string id at the start
// of b, or 0 if it cannot tell.
func idEnd(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	if b[0] != '"' {
		return bytes.IndexByte(b, ',') // a number runs to the comma
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return 0
}
