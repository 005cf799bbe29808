package frame

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeInvalidRequest is JSON-RPC's invalid-request error code.
const CodeInvalidRequest = jsonrpc.CodeInvalidRequest

// Refusal is the guard's verdict on one inbound frame the SDK must not
// see: what was wrong, under which id and for which tool it is answered.
type Refusal struct{ r refusal }

// ID is the frame's id as it can be echoed, nil when it has none.
func (r Refusal) ID() json.RawMessage { return r.r.fields.id }

// Tool is the tool a tools/call names, "" when none could be read.
func (r Refusal) Tool() string { return r.r.fields.tool }

// Call reports a tools/call request: it is audited under the tool it names.
func (r Refusal) Call() bool { return r.r.call }

// Silent reports a frame JSON-RPC never answers (a notification, a response).
func (r Refusal) Silent() bool { return r.r.silent }

// ToolError reports that the answer is a tool error (a result with
// isError) under the frame's id; otherwise it is a JSON-RPC error.
func (r Refusal) ToolError() bool { return r.r.toolError }

// Code is the JSON-RPC error code of the answer.
func (r Refusal) Code() int { return r.r.code }

// Reason says what was wrong and what to do.
func (r Refusal) Reason() string { return r.r.reason }

// AsJSONRPCError is r answered as a JSON-RPC error, never as a tool error
// (an HTTP error status carries a JSON-RPC error).
func (r Refusal) AsJSONRPCError() Refusal {
	r.r.toolError = false
	return r
}

// Check is the guard's rules applied to one message body.
type Check struct{ rule frameRule }

// Classify applies the guard's rules (batches, duplicate keys, ids that
// would come back changed, ...) to one trimmed message body, as the stdio
// guard does to each line; known reports whether a tool is offered.
func Classify(body []byte, known func(string) bool) Check {
	return Check{classify(body, known)}
}

// Passed reports that the SDK may have the message.
func (c Check) Passed() bool { return c.rule.pass }

// Refusal is the answer due when the message did not pass.
func (c Check) Refusal() Refusal { return Refusal{c.rule.r} }

// Scanner reads an oversized message in constant memory, keeping only the
// fields needed to answer it (its id, method and tool). Write feeds it.
type Scanner struct{ s frameScanner }

var _ io.Writer = (*Scanner)(nil)

// Write feeds p to the scanner; it never fails.
func (s *Scanner) Write(p []byte) (int, error) {
	s.s.feed(p)
	return len(p), nil
}

// Refusal is the answer to the scanned message: code and reason, under the
// id it carried.
func (s *Scanner) Refusal(code int, reason string) Refusal {
	return Refusal{s.s.fields().refusal(code, reason)}
}

// Reply encodes a response line (newline-terminated) under id (null when
// nil) carrying result, or, when result is nil, an error with code and
// message. Not json.Marshal: it would escape <, > and & inside an echoed
// id.
func Reply(id json.RawMessage, result any, code int, message string) ([]byte, error) {
	reply := wireReply{JSONRPC: "2.0", ID: id, Result: result}
	if id == nil {
		reply.ID = json.RawMessage("null")
	}
	if result == nil {
		reply.Error = &wireError{Code: code, Message: message}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(reply); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// QuoteCut quotes s for a message, cut to a readable length.
func QuoteCut(s string) string { return quoteCut(s) }

// StdioOptions configure [NewStdio].
type StdioOptions struct {
	// MaxBytes is the largest inbound line accepted (--max-request-bytes).
	MaxBytes int
	// Answer returns the reply line to a refused frame, nil for none.
	Answer func(Refusal) []byte
	// Known reports whether a tool name is offered; nil: every name is.
	Known func(string) bool
	// Log receives a line per refused frame.
	Log *slog.Logger
}

// Stdio is the stdio transport: an mcp.Transport over stdin and stdout
// whose Connection hands the SDK only the messages the frame guard
// accepted, decoded once, and writes each outbound message as one line,
// byte for byte as the SDK's own encoder would (large tool texts spliced
// in, escaped once; see SpliceMiddleware). Run the server with
// [Stdio.Context] of its context.
type Stdio struct {
	t *guardTransport
}

var _ mcp.Transport = (*Stdio)(nil)

// NewStdio returns the stdio transport over in and out.
func NewStdio(in io.ReadCloser, out io.WriteCloser, o StdioOptions) *Stdio {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	x := newExchange()
	w := &lockedWriter{w: out, x: x}
	answer := func(r refusal) []byte {
		if o.Answer == nil {
			return nil
		}
		return o.Answer(Refusal{r})
	}
	guard := newFrameGuard(in, w.own(), o.MaxBytes, answer, o.Known, o.Log, x)
	return &Stdio{t: &guardTransport{guard: guard, out: w, splice: newTextSplicer()}}
}

// Connect starts reading the guard's messages.
func (s *Stdio) Connect(ctx context.Context) (mcp.Connection, error) { return s.t.Connect(ctx) }

// Context is ctx carrying the transport's splicer, which SpliceMiddleware
// hands large tool texts to.
func (s *Stdio) Context(ctx context.Context) context.Context { return withSplicer(ctx, s.t.splice) }

// SpliceMiddleware is the receiving middleware that keeps a tool text of
// 4 KiB or more out of the SDK's marshalling when the call's context
// carries a Stdio transport's splicer (see encode_text.go).
func SpliceMiddleware(next mcp.MethodHandler) mcp.MethodHandler { return spliceMiddleware(next) }

// UnmarshalString decodes a JSON string into s as json.Unmarshal does, a
// plain string (quoted, no escape) without a decoder, as the guard reads
// method and tool names: the argument decoding reads queries this way.
func UnmarshalString(raw []byte, s *string) error { return unmarshalString(raw, s) }

// Request is what the HTTP front reads of a request that passed the
// rules, without handling JSON-RPC itself: its method, its id as JSON and
// its params. The zero Request (Method "") stands for a message that is no
// request (a response); a notification has a nil ID.
type Request struct {
	Method string
	ID     json.RawMessage
	Params json.RawMessage
}

// Request is the passed message as a [Request]; ok is false when it is no
// request (or a pass of an empty body).
func (c Check) Request() (req Request, ok bool) {
	var err error
	r, ok := c.rule.msg.(*jsonrpc.Request)
	if !ok {
		return Request{}, false
	}
	req = Request{Method: r.Method, Params: r.Params}
	if r.IsCall() {
		if req.ID, err = json.Marshal(r.ID.Raw()); err != nil {
			return Request{}, false
		}
	}
	return req, true
}
