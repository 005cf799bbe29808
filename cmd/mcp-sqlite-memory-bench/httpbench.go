package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP figures: this server, the do-nothing server (noop -http, and
// noop -http -stateless) and any HTTP peers each serve Streamable HTTP on
// a loopback port; the SDK's client calls the small query one call at a
// time (p50, p90), then from httpClients sessions at once (q/s), in each
// protocol era the server serves, interleaved as the stdio figures are.

// httpClients is the number of client sessions calling at once.
const httpClients = 16

// era is an MCP protocol era over Streamable HTTP: the version the SDK's
// client asks for (ClientSessionOptions.ProtocolVersion) and must get.
type era struct{ name, version string }

var (
	// sessionEra: the initialize handshake, and an Mcp-Session-Id where
	// the server keeps sessions.
	sessionEra = era{name: "session era", version: "2025-11-25"}
	// statelessEra: server/discover, no session, the protocol's fields in
	// each request's _meta; the SDK client's default.
	statelessEra = era{name: "stateless era", version: "2026-07-28"}
	httpEras     = []era{sessionEra, statelessEra}
)

// httpTarget is a server started once on a free loopback port, its
// endpoint at /mcp; argv holds {db}, and {addr} (host:port) or {port}.
type httpTarget struct {
	name string
	// floor marks the do-nothing server: its answers are not checked.
	floor bool
	// peer marks a server named in httpPeersEnv: one that fails is
	// dropped with a note instead of failing the run.
	peer bool
	// eras are the protocol eras the target is driven in, each by its
	// own client sessions on the one process.
	eras []era
	argv []string
}

// httpKey names one target driven in one era, as the samples are keyed:
// "mcp-sqlite-memory, session era".
func httpKey(target string, e era) string { return target + ", " + e.name }

// httpPeersEnv names the peers driven over Streamable HTTP, in
// MCP_SQLITE_BENCH_PEERS's syntax with {port} or {addr} for where to
// listen: "dbhub=node dbhub.js --transport http --host 127.0.0.1 --port {port} --dsn sqlite://{db}".
const httpPeersEnv = "MCP_SQLITE_BENCH_HTTP_PEERS"

// httpPeers parses httpPeersEnv's value: entries that are not
// name=command, or whose command says neither {port} nor {addr}, are
// skipped with a note. Each peer is driven in both eras.
func httpPeers(env string) ([]httpTarget, []string) {
	var out []httpTarget
	var notes []string
	for _, e := range strings.Split(env, ";") {
		if strings.TrimSpace(e) == "" {
			continue
		}
		name, cmdline, ok := strings.Cut(strings.TrimSpace(e), "=")
		argv := strings.Fields(cmdline)
		if !ok || name == "" || len(argv) == 0 {
			notes = append(notes, fmt.Sprintf("%s: entry %q is not name=command; skipped", httpPeersEnv, e))
			continue
		}
		if !strings.Contains(cmdline, "{port}") && !strings.Contains(cmdline, "{addr}") {
			notes = append(notes, fmt.Sprintf("%s: entry %q names neither {port} nor {addr}; skipped", httpPeersEnv, e))
			continue
		}
		out = append(out, httpTarget{name: "peer " + name, peer: true, eras: httpEras, argv: argv})
	}
	return out, notes
}

// httpTargets are the HTTP contenders built into dir: ours in both eras
// on one process, the do-nothing server on the SDK's default handler
// (sessions: the session era) and on its stateless one (the stateless
// era), the baseline build when set, then the HTTP peers.
//
// --max-sessions above the clients at once: in the stateless era this
// server bounds requests in flight by it (16 by default), and a client
// sends its next call as soon as it reads an answer, before the slot of
// that answer is given back; in the session era each client holds one.
func httpTargets(dir string) ([]httpTarget, []string) {
	ourArgs := func(bin string) []string {
		return []string{bin, "--db", "{db}", "--http", "{addr}", "--max-result-bytes", "4194304", "--max-sessions", "64"}
	}
	noop := filepath.Join(dir, "noop")
	ts := []httpTarget{
		{name: oursName, eras: httpEras, argv: ourArgs(filepath.Join(dir, "mcp-sqlite-memory"))},
		{name: floorName, floor: true, eras: []era{sessionEra}, argv: []string{noop, "-http", "{addr}"}},
		{name: floorName, floor: true, eras: []era{statelessEra}, argv: []string{noop, "-http", "{addr}", "-stateless"}},
	}
	if bin := os.Getenv(baselineEnv); bin != "" {
		ts = append(ts, httpTarget{name: baselineName, eras: httpEras, argv: ourArgs(bin)})
	}
	p, notes := httpPeers(os.Getenv(httpPeersEnv))
	return append(ts, p...), notes
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
	_, port, _ := net.SplitHostPort(addr)
	args := make([]string, len(t.argv))
	for i, a := range t.argv {
		args[i] = strings.NewReplacer("{db}", db, "{addr}", addr, "{port}", port).Replace(a)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for end := time.Now().Add(20 * time.Second); ; {
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

// session opens one MCP session on the server with the SDK's client,
// asking for e's protocol version; a server that negotiates another is
// an error, so no row measures an era it does not name.
func (h *httpServer) session(ctx context.Context, e era, floor bool) (session, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-sqlite-memory-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url}, &mcp.ClientSessionOptions{ProtocolVersion: e.version})
	if err != nil {
		return nil, err
	}
	if got := cs.InitializeResult().ProtocolVersion; got != e.version {
		cs.Close()
		return nil, fmt.Errorf("asked for protocol %s (%s), the server negotiated %s", e.version, e.name, got)
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

// httpClient is one target driven in one era: its server, and the
// session the one-at-a-time calls use.
type httpClient struct {
	t   httpTarget
	era era
	srv *httpServer
	one session
}

func (c *httpClient) key() string { return httpKey(c.t.name, c.era) }

// httpRun measures the HTTP figures of ts and returns their samples keyed
// "stdio/http-small/<httpKey>" and "stdio/http-conc/<httpKey>", with the
// clients that ran (a peer that fails is dropped, with a note on log).
func httpRun(ctx context.Context, ts []httpTarget, db string, c stdioConfig, log io.Writer) (map[string][]float64, []*httpClient, error) {
	samples := map[string][]float64{}
	fig := func(f string, hc *httpClient) string { return "stdio/" + f + "/" + hc.key() }
	var live []*httpClient
	// fail drops a peer's client, or fails the run for any other.
	fail := func(hc *httpClient, what string, err error) error {
		if !hc.t.peer {
			return fmt.Errorf("%s over HTTP, %s, %s: %w", hc.t.name, hc.era.name, what, err)
		}
		fmt.Fprintf(log, "%s over HTTP, %s, %s failed, skipped: %v\n", hc.t.name, hc.era.name, what, err)
		live = deleteClient(live, hc)
		delete(samples, fig("http-small", hc))
		delete(samples, fig("http-conc", hc))
		return nil
	}
	for _, t := range ts {
		srv, err := startHTTP(ctx, t, db)
		if err != nil {
			if !t.peer {
				return nil, nil, err
			}
			fmt.Fprintf(log, "%s over HTTP failed, skipped: %v\n", t.name, err)
			continue
		}
		defer srv.stop()
		for _, e := range t.eras {
			hc := &httpClient{t: t, era: e, srv: srv}
			live = append(live, hc)
			if hc.one, err = srv.session(ctx, e, t.floor); err != nil {
				if err := fail(hc, "first session", err); err != nil {
					return nil, nil, err
				}
				continue
			}
			defer hc.one.close()
		}
	}
	n := c.shop.customers
	fmt.Fprintf(log, "http: small x %d, %d servers in %d eras ...\n", c.small, len(ts), len(httpEras))
	for i := range c.small {
		for _, hc := range append([]*httpClient(nil), live...) {
			t0 := time.Now()
			if err := hc.one.query(ctx, fmt.Sprintf(smallQuery, i*7919%n+1), 0, 2); err != nil {
				if err := fail(hc, "small query", err); err != nil {
					return nil, nil, err
				}
				continue
			}
			samples[fig("http-small", hc)] = append(samples[fig("http-small", hc)], float64(time.Since(t0)))
		}
	}
	fmt.Fprintf(log, "http: %d clients at once ...\n", httpClients)
	for range c.rounds {
		for _, hc := range append([]*httpClient(nil), live...) {
			qps, err := httpThroughput(ctx, hc, httpClients, c.perConc, n)
			if err != nil {
				if err := fail(hc, fmt.Sprintf("%d clients at once", httpClients), err); err != nil {
					return nil, nil, err
				}
				continue
			}
			samples[fig("http-conc", hc)] = append(samples[fig("http-conc", hc)], qps)
		}
	}
	return samples, live, nil
}

func deleteClient(live []*httpClient, hc *httpClient) []*httpClient {
	for i, l := range live {
		if l == hc {
			return append(live[:i:i], live[i+1:]...)
		}
	}
	return live
}

// httpThroughput opens clients sessions of hc's era on its server and
// runs each small queries on each, all at once; it returns queries/s.
func httpThroughput(ctx context.Context, hc *httpClient, clients, each, n int) (float64, error) {
	ss := make([]session, clients)
	for i := range ss {
		s, err := hc.srv.session(ctx, hc.era, hc.t.floor)
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
