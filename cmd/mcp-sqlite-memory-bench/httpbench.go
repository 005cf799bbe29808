package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP figures: this server and the do-nothing server (noop -http)
// each serve Streamable HTTP on a loopback port; the SDK's client calls
// the small query one call at a time (p50, p90), then from httpClients
// sessions at once (q/s), interleaved as the stdio figures are.

// httpClients is the number of client sessions calling at once.
const httpClients = 16

// httpTarget is a server started once on a free loopback port; argv holds
// {db} and {addr}.
type httpTarget struct {
	name  string
	floor bool
	// report: a floor compared without a budget (the stateless floor).
	report bool
	argv   []string
}

// httpServer is one running HTTP target.
type httpServer struct {
	cmd *exec.Cmd
	url string
}

// startHTTP starts t on a free port of 127.0.0.1 and waits until it
// accepts connections.
func startHTTP(ctx context.Context, t httpTarget, db string) (*httpServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := make([]string, len(t.argv))
	for i, a := range t.argv {
		args[i] = strings.NewReplacer("{db}", db, "{addr}", addr).Replace(a)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for end := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return &httpServer{cmd: cmd, url: "http://" + addr + "/mcp"}, nil
		}
		if time.Now().After(end) || ctx.Err() != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("%s did not listen on %s: %w", t.name, addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// session opens one MCP session on the server with the SDK's client.
func (h *httpServer) session(ctx context.Context, floor bool) (session, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-sqlite-memory-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url}, nil)
	if err != nil {
		return nil, err
	}
	s := &mcpSession{cs: cs, floor: floor}
	if err := s.pickTool(ctx); err != nil {
		cs.Close()
		return nil, err
	}
	return s, nil
}

func (h *httpServer) stop() {
	h.cmd.Process.Signal(os.Interrupt)
	stopProcess(h.cmd, nil)
}

// httpRun measures the HTTP figures of ts (ours and the floor, and the
// baseline build when set) and returns their samples keyed
// "stdio/http-small/<target>" and "stdio/http-conc/<target>".
func httpRun(ctx context.Context, ts []httpTarget, db string, c stdioConfig, log io.Writer) (map[string][]float64, error) {
	samples := map[string][]float64{}
	add := func(fig, target string, v float64) {
		samples["stdio/"+fig+"/"+target] = append(samples["stdio/"+fig+"/"+target], v)
	}
	servers := make([]*httpServer, len(ts))
	one := make([]session, len(ts))
	for i, t := range ts {
		srv, err := startHTTP(ctx, t, db)
		if err != nil {
			return nil, err
		}
		defer srv.stop()
		servers[i] = srv
		if one[i], err = srv.session(ctx, t.floor); err != nil {
			return nil, fmt.Errorf("%s over HTTP: %w", t.name, err)
		}
		defer one[i].close()
	}
	n := c.shop.customers
	fmt.Fprintf(log, "http: small x %d ...\n", c.small)
	for i := range c.small {
		for j, s := range one {
			t0 := time.Now()
			if err := s.query(ctx, fmt.Sprintf(smallQuery, i*7919%n+1), 0, 2); err != nil {
				return nil, fmt.Errorf("%s over HTTP: %w", ts[j].name, err)
			}
			add("http-small", ts[j].name, float64(time.Since(t0)))
		}
	}
	fmt.Fprintf(log, "http: %d clients at once ...\n", httpClients)
	for range c.rounds {
		for j, t := range ts {
			qps, err := httpThroughput(ctx, servers[j], t.floor, httpClients, c.perConc, n)
			if err != nil {
				return nil, fmt.Errorf("%s, %d HTTP clients: %w", t.name, httpClients, err)
			}
			add("http-conc", t.name, qps)
		}
	}
	return samples, nil
}

// httpThroughput opens clients sessions on srv and runs each small
// queries on each, all at once; it returns queries/s.
func httpThroughput(ctx context.Context, srv *httpServer, floor bool, clients, each, n int) (float64, error) {
	ss := make([]session, clients)
	for i := range ss {
		s, err := srv.session(ctx, floor)
		if err != nil {
			return 0, err
		}
		defer s.close()
		ss[i] = s
	}
	var wg sync.WaitGroup
	errs := make([]error, clients)
	t0 := time.Now()
	for w := range clients {
		wg.Go(func() {
			for i := range each {
				if err := ss[w].query(ctx, fmt.Sprintf(smallQuery, (w*each+i)*7919%n+1), 0, 2); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(t0)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return float64(clients*each) / el.Seconds(), nil
}
