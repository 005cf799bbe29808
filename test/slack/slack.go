// Package slack scales the time bounds of tests to the machine's load, so
// a test whose verdict depends on wall-clock time holds on a busy machine
// as on an idle one. A bound that says "answers soon after its deadline"
// is a promise about the server; on a machine whose cores are shared by
// five times as many busy threads, every step takes up to five times as
// long, and the bound must grow with it, or the test measures the
// neighbours instead of the server.
//
// Use [Of] for every wall-clock bound a test asserts or waits for (an
// answer's latency, a liveness timeout), never for a deadline the test
// hands the code under test: that deadline is what is being tested.
package slack

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// maxFactor bounds the scaling: beyond it a test would wait for minutes
// and a hung server would look like a slow one.
const maxFactor = 20

// Factor is how many times slower than an idle machine this one runs now,
// at least 1 and at most 20: the larger of the runnable threads per CPU
// over the last minute (Linux's load average over runtime.NumCPU) and the
// wall time a thread needs per unit of CPU time at this moment (a 10 ms
// probe). The load average lags a sudden load; the probe sees it at once
// but only for its 10 ms. Where neither can be read it is 1.
func Factor() float64 {
	return min(max(factorOf(readLoad(), runtime.NumCPU()), probe(), 1), maxFactor)
}

// Of is d scaled by [Factor], read now (so after a call, the load during
// that call).
func Of(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// factorOf is load per cpu, clamped to [1, maxFactor].
func factorOf(load float64, cpus int) float64 {
	if cpus < 1 {
		cpus = 1
	}
	return min(max(load/float64(cpus), 1), maxFactor)
}

// readLoad is the one-minute load average, 0 when it cannot be read.
func readLoad() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return v
}
