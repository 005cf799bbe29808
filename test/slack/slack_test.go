package slack

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFactorScalesWithLoadPerCPU(t *testing.T) {
	for _, c := range []struct {
		load float64
		cpus int
		want float64
	}{
		{0, 2, 1}, {1.5, 2, 1}, {2, 2, 1}, {5, 2, 2.5}, {11, 2, 5.5}, {11, 0, 11}, {400, 4, maxFactor},
	} {
		assert.InDelta(t, c.want, factorOf(c.load, c.cpus), 1e-9, "load %v on %d cpus", c.load, c.cpus)
	}
}

func TestOfNeverShrinks(t *testing.T) {
	assert.GreaterOrEqual(t, Of(time.Second), time.Second)
	assert.LessOrEqual(t, Of(time.Second), maxFactor*time.Second)
	if runtime.GOOS == "linux" {
		assert.Greater(t, readLoad(), -1.0)
	}
}

// On a machine kept busy by more spinning goroutines than it has cores,
// the factor exceeds 1.
func TestFactorSeesBusyNeighbours(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the probe reads a thread's CPU time, Linux only")
	}
	var stop atomic.Bool
	n := 3 * runtime.NumCPU()
	prev := runtime.GOMAXPROCS(n + 1)
	defer runtime.GOMAXPROCS(prev)
	for range n {
		go func() {
			for !stop.Load() { // spin: a busy neighbour
			}
		}()
	}
	defer stop.Store(true)
	assert.Greater(t, probe(), 1.5, "busy neighbours slow a thread down")
}
