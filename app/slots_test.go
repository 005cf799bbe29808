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
	s := newSlots(l.MaxConcurrentCalls, "--max-concurrent-calls", "calls")
	require.NoError(t, s.acquire(context.Background(), "0.05"))
	require.NoError(t, s.acquire(context.Background(), "0.05"))

	ctx, cancel := context.WithTimeout(context.Background(), l.QueryTimeout)
	defer cancel()
	err := s.acquire(ctx, "0.05")
	require.Error(t, err)
	assert.True(t, errors.Is(err, domain.ErrTimeout))
	assert.Contains(t, err.Error(), "--max-concurrent-calls")
	assert.Contains(t, err.Error(), "nothing was run")
	assert.Contains(t, err.Error(), "2 other calls")
	assert.Contains(t, err.Error(), "0.05s deadline")

	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	assert.Contains(t, s.acquire(cctx, "0.05").Error(), "cancelled")

	// A waiter gets the slot as soon as one is given back. The look below
	// never waits: a waiter that got in while both slots are taken has
	// already answered, and a slow machine cannot make it fail.
	got := make(chan error, 1)
	go func() { got <- s.acquire(context.Background(), "0.05") }()
	select {
	case <-got:
		t.Fatal("a third call ran while two were in flight")
	default:
	}
	s.release()
	require.NoError(t, <-got)
}

func TestSlotsZeroMeansUnbounded(t *testing.T) {
	t.Parallel()
	s := newSlots(0, "--max-concurrent-calls", "calls")
	for range 100 {
		require.NoError(t, s.acquire(context.Background(), "10"))
	}
	s.release() // no-op
}
