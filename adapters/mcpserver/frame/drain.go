package frame

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drainWait bounds how long the end of stdin waits for answers to requests
// already read: long enough for any quick call, short enough that the
// server still exits within 3 s of its input closing (docs/decisions.md#details). A call
// still running after it is cancelled.
const drainWait = 1500 * time.Millisecond

// exchange tracks the requests handed to the SDK and not yet answered, by
// id (raw JSON, which the SDK writes back byte for byte: the guard hands
// on no other id). It serves two rules: a request whose id is still in
// flight is refused (the SDK would drop it unanswered), and the end of the
// input waits for the answers still due, so that a client that writes its
// requests and closes stdin at once (a script piping into the server) gets
// every answer. Answers the guard writes itself are never counted: they
// answer frames that were not handed on.
type exchange struct {
	mu      sync.Mutex
	flying  map[string]struct{}
	changed chan struct{} // closed and replaced on every answer
}

func newExchange() *exchange {
	return &exchange{flying: map[string]struct{}{}, changed: make(chan struct{})}
}

// begin records a request with this id as handed on; it reports false,
// recording nothing, when a request with the same id is still in flight.
func (x *exchange) begin(id string) bool {
	if x == nil {
		return true
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, dup := x.flying[id]; dup {
		return false
	}
	x.flying[id] = struct{}{}
	return true
}

// end records the answer to the request with this id.
func (x *exchange) end(id string) {
	x.mu.Lock()
	if _, ok := x.flying[id]; ok {
		delete(x.flying, id)
		close(x.changed)
		x.changed = make(chan struct{})
	}
	x.mu.Unlock()
}

// drain waits until every request handed on so far is answered, or d
// passes.
func (x *exchange) drain(d time.Duration) {
	if x == nil {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		x.mu.Lock()
		done, changed := len(x.flying) == 0, x.changed
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

// Write writes one message. An answer ends its request's flight even when
// it could not be written: no other answer will come.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if l.x != nil {
		if id, ok := responseID(p); ok {
			l.x.end(string(id))
		}
	}
	return n, err
}

// Close closes stdout.
func (l *lockedWriter) Close() error { return l.w.Close() }

// own is the writer for the guard's own answers. They answer frames that
// were never handed on, so they end no request's flight: an error for a
// duplicate id must not free the id of the request still running.
func (l *lockedWriter) own() io.Writer { return ownWriter{l} }

type ownWriter struct{ l *lockedWriter }

func (o ownWriter) Write(p []byte) (int, error) {
	o.l.mu.Lock()
	defer o.l.mu.Unlock()
	return o.l.w.Write(p)
}

// sdkResponse is how the SDK begins every message that carries an id.
var sdkResponse = []byte(`{"jsonrpc":"2.0","id":`)

// responseID returns the id of an outgoing message that answers a request
// (rather than being a request or notification of the server's own). The
// SDK writes `{"jsonrpc":"2.0","id":<id>,"result"|"error"...` for answers,
// so the id is cut out and the next key read; any other shape is decoded.
func responseID(msg []byte) ([]byte, bool) {
	if rest, ok := bytes.CutPrefix(msg, sdkResponse); ok {
		if i := idEnd(rest); i > 0 {
			id, next := rest[:i], rest[i:]
			switch {
			case bytes.HasPrefix(next, []byte(`,"result"`)), bytes.HasPrefix(next, []byte(`,"error"`)):
				return id, true
			case bytes.HasPrefix(next, []byte(`,"method"`)):
				return nil, false
			}
		}
	}
	var wire struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(bytes.TrimSpace(msg), &wire) != nil || wire.Method != nil || len(wire.ID) == 0 {
		return nil, false
	}
	return wire.ID, true
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
