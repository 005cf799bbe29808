package frame

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// recordWriter records each Write call separately.
type recordWriter struct {
	mu     sync.Mutex
	writes []string
	closed bool
}

func (w *recordWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *recordWriter) Close() error { w.closed = true; return nil }

func connOver(t *testing.T, in io.ReadCloser, out io.WriteCloser) *guardConn {
	t.Helper()
	g := newFrameGuard(in, io.Discard, 1<<20, func(refusal) []byte { return nil }, nil, slog.New(slog.DiscardHandler), newExchange())
	c, err := (&guardTransport{guard: g, out: out}).Connect(context.Background())
	require.NoError(t, err)
	return c.(*guardConn)
}

func TestGuardConnHandsOnDecodedMessagesThatOutliveTheReadBuffer(t *testing.T) {
	t.Parallel()
	input := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT 1"}}}` + "\n" +
		"not json\n" + // refused by the guard, never seen by the SDK
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"read_query","arguments":{"query":"SELECT 2"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	c := connOver(t, io.NopCloser(strings.NewReader(input)), &recordWriter{})
	ctx := context.Background()
	first, err := c.Read(ctx)
	require.NoError(t, err)
	var rest []jsonrpc.Message
	for {
		m, err := c.Read(ctx)
		if err != nil {
			assert.ErrorIs(t, err, io.EOF)
			break
		}
		rest = append(rest, m)
	}
	// The guard reuses its line buffer: the first message must still hold
	// its own params after later lines were read into it.
	req := first.(*jsonrpc.Request)
	assert.Equal(t, "tools/call", req.Method)
	assert.Contains(t, string(req.Params), "SELECT 1")
	require.Len(t, rest, 2)
	assert.Contains(t, string(rest[0].(*jsonrpc.Request).Params), "SELECT 2")
	assert.False(t, rest[1].(*jsonrpc.Request).IsCall(), "a notification has no id")
}

func TestGuardConnWritesOneLinePerMessageInOneWrite(t *testing.T) {
	t.Parallel()
	out := &recordWriter{}
	c := connOver(t, io.NopCloser(strings.NewReader("")), out)
	id, err := jsonrpc.MakeID(float64(7))
	require.NoError(t, err)
	for _, text := range []string{"a<b>&c", strings.Repeat("x", 100<<10), "short"} {
		require.NoError(t, c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: []byte(`{"text":"` + text + `"}`)}))
	}
	require.Len(t, out.writes, 3)
	for _, w := range out.writes {
		assert.True(t, strings.HasPrefix(w, `{"jsonrpc":"2.0","id":7,"result":`), w[:min(len(w), 60)])
		assert.Equal(t, 1, strings.Count(w, "\n"))
		assert.True(t, strings.HasSuffix(w, "\n"))
	}
	assert.Contains(t, out.writes[2], "short")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Error(t, c.Write(ctx, &jsonrpc.Response{ID: id}), "a Write on a closed context is an error")
}

func TestGuardConnCloseUnblocksRead(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &recordWriter{}
	c := connOver(t, inR, out)
	got := make(chan error, 1)
	go func() { _, err := c.Read(context.Background()); got <- err }()
	require.NoError(t, c.Close())
	select {
	case err := <-got:
		assert.ErrorIs(t, err, io.EOF)
	case <-time.After(slack.Of(5 * time.Second)):
		require.FailNow(t, "Read stayed blocked after Close")
	}
	assert.NoError(t, c.Close(), "Close may be called again")
	assert.True(t, out.closed)
}
