package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// refusal is the guard's verdict on one inbound frame the SDK must not see.
type refusal struct {
	fields frameFields
	// code is the JSON-RPC error code for a frame that is not a tool call.
	code int
	// reason says what was wrong and what to do.
	reason string
}

// frameGuard sits between stdin and the SDK's newline-delimited JSON reader
// and hands the SDK only frames it can read. The SDK ends the whole session
// on a line that is not a JSON-RPC message, and buffers any frame it is
// given (up to 16 MiB, at many times that size in memory), so the guard
// answers those frames itself and the session goes on:
//
//   - a line that is not JSON gets a parse error (id null);
//   - JSON that is not a JSON-RPC message gets an invalid-request error;
//   - a frame over max bytes is scanned in constant memory for its id and,
//     for tools/call, refused as a tool error that the audit log records.
type frameGuard struct {
	r      *bufio.Reader
	in     io.Closer
	out    io.Writer
	max    int
	answer func(refusal) []byte // the reply line for a refused frame
	log    *slog.Logger
	x      *exchange // requests handed on and answered, for a clean end

	line []byte // the frame being handed to the SDK
	off  int
	buf  []byte
	err  error // the input's end, returned once the last frame is read
}

func newFrameGuard(in io.ReadCloser, out io.Writer, max int, answer func(refusal) []byte, log *slog.Logger, x *exchange) *frameGuard {
	return &frameGuard{r: bufio.NewReaderSize(in, 64<<10), in: in, out: out, max: max, answer: answer, log: log, x: x}
}

// Read hands the SDK the next accepted frames, newline-terminated. At the
// end of the input it first lets the requests already handed on be
// answered (the SDK drops them once its input ends), for at most
// drainWait.
func (g *frameGuard) Read(p []byte) (int, error) {
	for g.off >= len(g.line) {
		if g.err != nil {
			g.x.drain(drainWait)
			return 0, g.err
		}
		g.line, g.off = g.next(), 0
	}
	n := copy(p, g.line[g.off:])
	g.off += n
	return n, nil
}

// Close closes stdin.
func (g *frameGuard) Close() error { return g.in.Close() }

// next reads lines until one is a frame the SDK may have, answering the
// others. It returns nil, with g.err set, at the end of the input.
func (g *frameGuard) next() []byte {
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
		r, requests, ok := check(frame)
		if !ok {
			g.refuse(r, len(frame))
			continue
		}
		g.x.ask(requests)
		return append(frame, '\n')
	}
	return nil
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
	g.refuse(refusal{
		fields: s.fields(),
		code:   jsonrpc.CodeInvalidRequest,
		reason: fmt.Sprintf("request is %d bytes, over the server's limit of %d bytes (--max-request-bytes); send less per call: split the content or the statement into several calls", size, g.max),
	}, size)
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

// check reports whether frame is a JSON-RPC message (or batch) the SDK can
// read, and how many requests it holds that await an answer; otherwise why
// not.
func check(frame []byte) (refusal, int, bool) {
	if !json.Valid(frame) {
		return refusal{code: jsonrpc.CodeParseError, reason: "parse error: the line is not JSON; send one JSON-RPC message per line"}, 0, false
	}
	msgs := []json.RawMessage{frame}
	if frame[0] == '[' {
		if err := json.Unmarshal(frame, &msgs); err != nil || len(msgs) == 0 {
			return refusal{code: jsonrpc.CodeInvalidRequest, reason: "invalid request: an empty or malformed batch"}, 0, false
		}
	}
	requests := 0
	for _, m := range msgs {
		msg, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			var s frameScanner
			s.feed(m)
			return refusal{fields: s.fields(), code: jsonrpc.CodeInvalidRequest, reason: "invalid request: not a JSON-RPC 2.0 message (" + err.Error() + ")"}, 0, false
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			requests++
		}
	}
	return refusal{}, requests, true
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

// answer is the reply to a frame the guard refused, or nil when none is
// due (a notification). A tool call is answered like any refused call: a
// tool error, written to the audit log.
func (s *Server) answer(r refusal) []byte {
	f := r.fields
	reply := wireReply{JSONRPC: "2.0", ID: f.id}
	switch {
	case f.id == nil && f.method != "":
		return nil // a notification is never answered
	case f.id != nil && f.method == "tools/call":
		tool := f.tool
		if tool == "" {
			tool = "tools/call"
		}
		err := s.tools.Reject(context.Background(), tool, domain.Errorf(domain.ErrInvalidArgument, "%s", r.reason))
		reply.Result = result("", err)
	default:
		reply.Error = &wireError{Code: r.code, Message: r.reason}
	}
	data, err := json.Marshal(reply)
	if err != nil {
		s.opts.Log.Warn("could not encode a refusal", "err", err)
		return nil
	}
	return append(data, '\n')
}
