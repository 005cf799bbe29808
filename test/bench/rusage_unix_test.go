//go:build unix

package bench_test

import "syscall"

// perf2Rusage is the process's CPU time (user + system) in nanoseconds.
func perf2Rusage() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
