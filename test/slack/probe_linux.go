package slack

import (
	"runtime"
	"syscall"
	"time"
)

// probeWindow is how long the probe spins.
const probeWindow = 10 * time.Millisecond

// probe is how much wall time a thread needs per unit of CPU time right
// now: it spins for probeWindow and divides by the CPU time the thread
// got (RUSAGE_THREAD). On an idle machine that is 1; when the cores are
// shared with busy neighbours it is how many share them. 0 when the CPU
// time cannot be read.
func probe() float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rusageThread = 1
	var before, after syscall.Rusage
	if syscall.Getrusage(rusageThread, &before) != nil {
		return 0
	}
	start := time.Now()
	for time.Since(start) < probeWindow {
	}
	wall := time.Since(start)
	if syscall.Getrusage(rusageThread, &after) != nil {
		return 0
	}
	cpu := time.Duration(syscall.TimevalToNsec(after.Utime)+syscall.TimevalToNsec(after.Stime)) -
		time.Duration(syscall.TimevalToNsec(before.Utime)+syscall.TimevalToNsec(before.Stime))
	if cpu <= 0 {
		return maxFactor
	}
	return float64(wall) / float64(cpu)
}
