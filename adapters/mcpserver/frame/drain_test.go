package frame

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		msg  string
		want bool
	}{
		{"result", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n", true},
		{"error", `{"jsonrpc":"2.0","id":-7,"error":{"code":-32601,"message":"x"}}` + "\n", true},
		{"string id with escapes", `{"jsonrpc":"2.0","id":"a\"b,\\","result":{}}` + "\n", true},
		{"other key order is decoded", `{"id":3,"result":{},"jsonrpc":"2.0"}` + "\n", true},
		{"the server's own request", `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", false},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n", false},
		{"a result key inside a request", `{"jsonrpc":"2.0","id":2,"method":"m","params":{"result":1}}` + "\n", false},
		{"not JSON", "garbage\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, isResponse([]byte(tc.msg)))
		})
	}
}

func TestExchangeDrainWaitsForEveryAnswer(t *testing.T) {
	t.Parallel()
	x := newExchange()
	for _, id := range []string{"1", `"a"`, "-3"} {
		require.True(t, x.begin(id))
	}
	var answered atomic.Int32 // counted before each end, so drain cannot see an end the count has not
	go func() {
		x.end("99") // an answer the guard wrote itself counts for nothing
		for _, id := range []string{"1", `"a"`, "-3"} {
			time.Sleep(5 * time.Millisecond)
			answered.Add(1)
			x.end(id)
		}
	}()
	x.drain(time.Minute)
	assert.EqualValues(t, 3, answered.Load(), "drain returned before the third answer")
}

func TestExchangeDrainGivesUp(t *testing.T) {
	t.Parallel()
	x := newExchange()
	require.True(t, x.begin("1"))
	done := make(chan struct{})
	go func() {
		x.drain(10 * time.Millisecond)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		assert.Fail(t, "drain never gave up on an unanswered request")
	}
	var none *exchange
	assert.True(t, none.begin("1"))
	none.drain(time.Minute) // a guard without an exchange does not wait
}

func TestExchangeRefusesAnIDInFlight(t *testing.T) {
	t.Parallel()
	x := newExchange()
	require.True(t, x.begin("7"))
	assert.False(t, x.begin("7"), "the same id while the first is in flight")
	assert.True(t, x.begin(`"7"`), "a string id is another id")
	x.end("7")
	assert.True(t, x.begin("7"), "an id may be used again once answered")
}

func TestResponseIDCutsTheIDOut(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		`{"jsonrpc":"2.0","id":12,"result":{}}`:              `12`,
		`{"jsonrpc":"2.0","id":"a\"b","error":{"code":1}}`:   `"a\"b"`,
		`{"result":{},"id":"x","jsonrpc":"2.0"}`:             `"x"`,
		`{"jsonrpc":"2.0","id":3,"method":"roots/list"}`:     ``,
		`{"jsonrpc":"2.0","method":"notifications/message"}`: ``,
	} {
		id, ok := responseID([]byte(msg + "\n"))
		assert.Equal(t, want != "", ok, msg)
		assert.Equal(t, want, string(id), msg)
	}
}

// isResponse reports whether an outgoing message answers a request.
func isResponse(msg []byte) bool {
	_, ok := responseID(msg)
	return ok
}
