//go:build !unix

package bench_test

// perf2Rusage is 0 where getrusage does not exist: the CPU-time figures
// of these benchmarks are reported on Unix only.
func perf2Rusage() int64 { return 0 }
