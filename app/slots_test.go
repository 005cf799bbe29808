package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestSlotsBoundCallsAndWaitersTimeOutNamingTheFlag(t *testing.T) {
	t.Parallel()
	l := domain.DefaultLimits()
	l.MaxConcurrentCalls, l.QueryTimeout = 2, 50*time.Millisecond
	s := newSlots(l.MaxConcurrentCalls)
	require.NoError(t, s.acquire(context.Background(), l))
	require.NoError(t, s.acquire(context.Background(), l))

	ctx, cancel := context.WithTimeout(context.Background(), l.QueryTimeout)
	defer cancel()
	err := s.acquire(ctx, l)
	require.Error(t, err)
	assert.True(t, errors.Is(err, domain.ErrTimeout))
	assert.Contains(t, err.Error(), "--max-concurrent-calls")
	assert.Contains(t, err.Error(), "nothing was run")

	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	assert.Contains(t, s.acquire(cctx, l).Error(), "cancelled")

	// A waiter gets the slot as soon as one is given back.
	got := make(chan error, 1)
	go func() { got <- s.acquire(context.Background(), l) }()
	select {
	case <-got:
		t.Fatal("a third call ran while two were in flight")
	case <-time.After(20 * time.Millisecond):
	}
	s.release()
	require.NoError(t, <-got)
}

func TestSlotsZeroMeansUnbounded(t *testing.T) {
	t.Parallel()
	s := newSlots(0)
	for range 100 {
		require.NoError(t, s.acquire(context.Background(), domain.DefaultLimits()))
	}
	s.release() // no-op
}
