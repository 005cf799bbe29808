package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
	x.ask(3)
	answered := make(chan struct{})
	go func() {
		for range 3 {
			time.Sleep(5 * time.Millisecond)
			x.answer()
		}
		close(answered)
	}()
	x.drain(time.Minute)
	select {
	case <-answered:
	default:
		assert.Fail(t, "drain returned before the third answer")
	}
}

func TestExchangeDrainGivesUp(t *testing.T) {
	t.Parallel()
	x := newExchange()
	x.ask(1)
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
	none.ask(1)
	none.drain(time.Minute) // a guard without an exchange does not wait
}
