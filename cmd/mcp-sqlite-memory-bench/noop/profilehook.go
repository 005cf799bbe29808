//go:build profilehook

package main

// A measurement hook, built only with -tags profilehook (never in a
// release): with MCP_SQLITE_CPUPROFILE=<file> the process records a CPU
// profile, with MCP_SQLITE_TRACE=<file> a runtime trace, from start until
// it receives SIGUSR2, then writes them. The load generator sends the
// signal after its timed loop, so the profile holds the calls and little
// of the start.

import (
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
)

func init() {
	cpu, tr := os.Getenv("MCP_SQLITE_CPUPROFILE"), os.Getenv("MCP_SQLITE_TRACE")
	if cpu == "" && tr == "" {
		return
	}
	var files []*os.File
	if cpu != "" {
		if f, err := os.Create(cpu); err == nil && pprof.StartCPUProfile(f) == nil {
			files = append(files, f)
		}
	}
	if tr != "" {
		if f, err := os.Create(tr); err == nil && trace.Start(f) == nil {
			files = append(files, f)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	go func() {
		<-sig
		if cpu != "" {
			pprof.StopCPUProfile()
		}
		if tr != "" {
			trace.Stop()
		}
		for _, f := range files {
			f.Close()
		}
	}()
}
