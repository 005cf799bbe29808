package frame

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guardTransport is the stdio transport: an mcp.Transport whose Connection
// reads messages the frame guard has already decoded, instead of the SDK's
// IOTransport, which would decode each accepted line again (a stream
// decoder, a batch probe and the message: three decoders of 32 KiB each in
// SDK v1.8.0, about 100 KB per inbound message). Outbound messages are
// encoded as the SDK's public jsonrpc.EncodeMessage encodes them
// (appendMessage, encode.go) and written as one line each, through the same writer as before. Batches never reach it:
// the guard refuses them.
type guardTransport struct {
	guard  *frameGuard
	out    io.WriteCloser
	splice *textSplicer // nil: no large text is spliced (encode_text.go)
}

var _ mcp.Transport = (*guardTransport)(nil)

// Connect starts reading the guard's messages.
func (t *guardTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &guardConn{guard: t.guard, out: t.out, splice: t.splice, incoming: make(chan guardRead), closed: make(chan struct{})}
	// Reads of stdin cannot be interrupted, so they run on their own
	// goroutine and Read waits for them or for Close (the SDK requires
	// Close to unblock Read).
	go c.readLoop()
	return c, nil
}

type guardRead struct {
	msg jsonrpc.Message
	err error
}

// guardConn is the Connection of guardTransport.
type guardConn struct {
	guard    *frameGuard
	out      io.WriteCloser
	incoming chan guardRead
	closed   chan struct{}
	splice   *textSplicer

	writeMu sync.Mutex
	line    []byte // reused for each outbound line

	closeOnce sync.Once
	closeErr  error
}

var _ mcp.Connection = (*guardConn)(nil)

func (c *guardConn) readLoop() {
	for {
		msg, err := c.guard.Message()
		select {
		case c.incoming <- guardRead{msg: msg, err: err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message the guard accepted.
func (c *guardConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case r := <-c.incoming:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line, in one Write call to out.
func (c *guardConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	line, err := c.splice.appendMessage(c.line[:0], msg)
	if err != nil {
		return err
	}
	c.line = append(line, '\n')
	_, err = c.out.Write(c.line)
	if cap(c.line) > 64<<10 {
		c.line = nil // do not keep a large answer's buffer for the session
	}
	return err
}

// Close closes stdin and stdout and unblocks Read; it may be called many
// times.
func (c *guardConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.guard.Close(), c.out.Close())
		close(c.closed)
		c.splice.drop()
	})
	return c.closeErr
}

// SessionID is empty: stdio has one session.
func (c *guardConn) SessionID() string { return "" }
