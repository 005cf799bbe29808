package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// A question that got no answer is worded by why: a client that went away
// is "client gone" whichever arrives first, its call's cancel or the
// connection's end; an error the client answered with is an invalid answer.
func TestElicitFailureOutcomes(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, stop := context.WithTimeout(context.Background(), 0)
	defer stop()
	<-expired.Done()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want domain.Outcome
	}{
		{"the wait ran out", expired, context.DeadlineExceeded, domain.OutcomeTimedOut},
		{"the call was cancelled", cancelled, context.Canceled, domain.OutcomeGone},
		{"the SDK saw the connection close", live, fmt.Errorf("%w: calling %q: x", mcp.ErrConnectionClosed, "elicitation/create"), domain.OutcomeGone},
		{"the stream ended before the cancel arrived", live, fmt.Errorf("read: %w", io.EOF), domain.OutcomeGone},
		{"the pipe was closed", live, io.ErrClosedPipe, domain.OutcomeGone},
		{"the SDK's reader was cancelled before the call", live, fmt.Errorf("reading: %w", context.Canceled), domain.OutcomeGone},
		{"the client answered with an error", live, errors.New("Invalid params: unknown field"), domain.OutcomeInvalid},
	} {
		got, note := elicitFailure(tc.ctx, tc.err)
		assert.Equal(t, tc.want, got, tc.name)
		assert.NotEmpty(t, note, tc.name)
	}
}
