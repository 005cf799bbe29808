//go:build profilehook && unix

package profilehook

import (
	"fmt"
	"io"
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
	start := func(name string, begin func(io.Writer) error) {
		f, err := os.Create(name)
		if err == nil {
			err = begin(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "profilehook: %s: %v (no profile is written)\n", name, err)
			return
		}
		files = append(files, f)
	}
	if cpu != "" {
		start(cpu, pprof.StartCPUProfile)
	}
	if tr != "" {
		start(tr, trace.Start)
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
