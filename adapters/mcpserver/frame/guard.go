package frame

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// refusal is the guard's verdict on one inbound frame the SDK must not see.
type refusal struct {
	fields frameFields
	// code is the JSON-RPC error code of the answer.
	code int
	// reason says what was wrong and what to do.
	reason string
	// silent frames get no answer: notifications and responses, which
	// JSON-RPC never answers.
	silent bool
	// call marks a tools/call request: the answer function audits it
	// under the tool it names, or "tools/call".
	call bool
	// toolError answers the call as a tool error (a result with isError)
	// under its id, as any refused call is; otherwise a JSON-RPC error.
	toolError bool
}

// refusal builds the guard's answer to a frame with these fields: none
// for a notification, a tool error for a tool call with an id that can be
// echoed, a JSON-RPC error (id null when it cannot be echoed) otherwise.
//
// A tools/call is audited even when it gets no answer (sent without an
// id): the SDK never runs it, and the audit row is its only trace.
func (f frameFields) refusal(code int, reason string) refusal {
	r := refusal{fields: f, code: code, reason: reason, call: f.method == "tools/call"}
	switch {
	case !f.hasID && f.method != "", f.response:
		r.silent = true
	case r.call:
		r.toolError = f.id != nil
	}
	return r
}

// frameGuard sits between stdin and the SDK and hands the SDK, through the
// stdio Connection (guardConn, conn.go), only the messages it can read,
// decoded once (Message). The SDK ends the whole session
// on a line that is not a JSON-RPC message, and buffers any frame it is
// given (up to 16 MiB, at many times that size in memory), so the guard
// answers those frames itself and the session goes on:
//
//   - a line that is not JSON gets a parse error (id null);
//   - JSON that is not a JSON-RPC message the SDK answers faithfully gets
//     an invalid-request error (see classify for the rules);
//   - a request whose id is still in flight gets an invalid-request error;
//   - a frame over max bytes is scanned in constant memory for its id and,
//     for tools/call, refused as a tool error that the audit log records.
type frameGuard struct {
	r      *bufio.Reader
	in     io.Closer
	out    io.Writer
	max    int
	answer func(refusal) []byte // the reply line for a refused frame
	known  func(string) bool    // whether a tool name is offered; nil: all are
	log    *slog.Logger
	x      *exchange // requests handed on and not yet answered

	msg jsonrpc.Message // the accepted frame, decoded (see Message)
	buf []byte          // the line being read, reused for the next
	err error           // the input's end, returned once the last frame is read
}

func newFrameGuard(in io.ReadCloser, out io.Writer, max int, answer func(refusal) []byte, known func(string) bool, log *slog.Logger, x *exchange) *frameGuard {
	return &frameGuard{r: bufio.NewReaderSize(in, 64<<10), in: in, out: out, max: max, answer: answer, known: known, log: log, x: x}
}

// Close closes stdin.
func (g *frameGuard) Close() error { return g.in.Close() }

// next reads lines until one is a frame the SDK may have, answering the
// others, and keeps it decoded in g.msg. It returns false, with g.err set,
// at the end of the input.
func (g *frameGuard) next() bool {
	for g.err == nil {
		g.buf = g.buf[:0]
		oversized := false
		for {
			chunk, err := g.r.ReadSlice('\n')
			if len(g.buf)+len(chunk) > g.max {
				g.skip(chunk, err)
				oversized = true
				break
			}
			g.buf = append(g.buf, chunk...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			g.err = err // nil, io.EOF or a read error; a last line without newline still counts
			break
		}
		if oversized {
			continue
		}
		frame := bytes.TrimSpace(g.buf)
		if len(frame) == 0 {
			continue
		}
		rule := classify(frame, g.known)
		if !rule.pass {
			g.refuse(rule.r, len(frame))
			continue
		}
		if rule.id != "" && !g.x.begin(rule.id) {
			w := walkFrame(frame)
			f := envelope(w.top, w.params)
			r := f.refusal(jsonrpc.CodeInvalidRequest, "invalid request: the id "+rule.id+" is already in use by a request still running; use a new id for each request")
			r.toolError = false // a JSON-RPC error, so it cannot pass for the first call's answer
			g.refuse(r, len(frame))
			continue
		}
		g.msg = rule.msg
		return true
	}
	return false
}

// Message returns the next accepted frame already decoded: the guard has
// decoded each frame with the SDK's own decoder to accept it, so the SDK
// need not read it again. At the end of the input it first lets the
// requests already handed on be answered (the SDK drops them once its
// input ends), for at most drainWait, then returns the input's end.
func (g *frameGuard) Message() (jsonrpc.Message, error) {
	for g.err == nil {
		if g.next() {
			return g.msg, nil
		}
	}
	g.x.drain(drainWait)
	return nil, g.err
}

// skip consumes the rest of an oversized frame (g.buf, then chunk, then up
// to the newline), keeping only the fields needed to answer it.
func (g *frameGuard) skip(chunk []byte, err error) {
	var s frameScanner
	s.feed(g.buf)
	size := len(g.buf)
	for {
		s.feed(chunk)
		size += len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			g.err = err
			break
		}
		chunk, err = g.r.ReadSlice('\n')
	}
	g.buf = g.buf[:0]
	g.refuse(s.fields().refusal(jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("request is %d bytes, over the server's limit of %d bytes (--max-request-bytes); send less per call: split the content or the statement into several calls", size, g.max)), size)
}

// refuse answers a frame the SDK will not see and logs it.
func (g *frameGuard) refuse(r refusal, size int) {
	g.log.Warn("refused an inbound frame", "bytes", size, "method", r.fields.method, "tool", r.fields.tool, "reason", r.reason)
	if reply := g.answer(r); reply != nil {
		if _, err := g.out.Write(reply); err != nil {
			g.log.Warn("could not answer a refused frame", "err", err)
		}
	}
}

// wireReply is a JSON-RPC response written by the guard. A nil ID is
// written as null, as JSON-RPC asks when the request's id is unknown.
type wireReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}
