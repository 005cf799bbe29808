package app

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// heartbeatEvery is how often a step that reports nothing of its own (one
// SQLite backup step) tells a listening client it is still running.
const heartbeatEvery = time.Second

// searchProgressRows is how many candidate rows search_text scans between
// two progress reports.
const searchProgressRows = 1000

// during reports step done of total now, then, until stop is called, every
// heartbeatEvery a value between done and done+1 (always growing) with the
// time spent so far. Nothing runs when no client listens.
func during(ctx context.Context, done, total float64, message string) (stop func()) {
	p := ports.ProgressOf(ctx)
	if p == nil {
		return func() {}
	}
	p.Report(done, total, message)
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		start := time.Now()
		for k := 1; ; k++ {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				p.Report(done+float64(k)/float64(k+1), total, fmt.Sprintf("%s (%ds)", message, int(time.Since(start).Seconds())))
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}
