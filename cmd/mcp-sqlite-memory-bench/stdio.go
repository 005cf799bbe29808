package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// stdioConfig sizes the side-by-side run over stdio.
type stdioConfig struct {
	shop shopSize
	// small is the number of 1-row queries per target; big the number of
	// 1000-row and join queries; starts the number of cold starts.
	small, big, starts int
	// procs processes x perProc queries each, on one file; conc calls at
	// once x perConc each, in one process; rounds repeats both.
	procs, perProc, conc, perConc, rounds int
}

func stdioSizes(short bool) stdioConfig {
	if short {
		return stdioConfig{shop: fullShop, small: 300, big: 2, starts: 5, procs: 4, perProc: 100, conc: 16, perConc: 25, rounds: 2}
	}
	return stdioConfig{shop: fullShop, small: 1000, big: 10, starts: 20, procs: 4, perProc: 200, conc: 16, perConc: 100, rounds: 3}
}

// stdioRun measures every target side by side, interleaved (each sample
// of a figure is taken for every target in turn before the next), and
// returns the results keyed "stdio/<figure>/<target>" and the figures.
func stdioRun(ctx context.Context, ts []target, db string, c stdioConfig, log io.Writer) (map[string]result, []figure, error) {
	samples := map[string][]float64{}
	add := func(fig, target string, ns float64) {
		samples["stdio/"+fig+"/"+target] = append(samples["stdio/"+fig+"/"+target], ns)
	}
	live := ts[:0:0]
	// A peer that fails is dropped with a note; ours, the floor or sqlite3
	// failing fails the run.
	fail := func(t target, err error) error {
		if t.name[:min(5, len(t.name))] == "peer " {
			fmt.Fprintf(log, "%s failed, skipped: %v\n", t.name, err)
			return nil
		}
		return fmt.Errorf("%s: %w", t.name, err)
	}

	fmt.Fprintln(log, "stdio: cold starts ...")
	live = append(live, ts...)
	for range c.starts {
		for i := 0; i < len(live); i++ {
			t := live[i]
			t0 := time.Now()
			s, err := t.start(ctx, db)
			if err != nil {
				if err := fail(t, err); err != nil {
					return nil, nil, err
				}
				live = slices.Delete(live, i, i+1)
				i--
				continue
			}
			add("start", t.name, float64(time.Since(t0)))
			// The server answers the handshake while its database opens;
			// the first answer that needs the database shows the open's
			// cost (report only).
			if err := s.query(ctx, fmt.Sprintf(smallQuery, 1), 0, 2); err != nil {
				s.close()
				if err := fail(t, fmt.Errorf("first query: %w", err)); err != nil {
					return nil, nil, err
				}
				live = slices.Delete(live, i, i+1)
				i--
				continue
			}
			add("firstquery", t.name, float64(time.Since(t0)))
			s.close()
		}
	}

	sess := make([]session, len(live))
	for i, t := range live {
		s, err := t.start(ctx, db)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", t.name, err)
		}
		defer s.close()
		sess[i] = s
	}
	timed := func(fig string, n int, q func(i int) (string, int, int)) error {
		fmt.Fprintf(log, "stdio: %s x %d ...\n", fig, n)
		for i := range n {
			sql, limit, want := q(i)
			for j, s := range sess {
				t0 := time.Now()
				if err := s.query(ctx, sql, limit, want); err != nil {
					return fmt.Errorf("%s, %s: %w", live[j].name, fig, err)
				}
				add(fig, live[j].name, float64(time.Since(t0)))
			}
		}
		return nil
	}
	n := c.shop.customers
	if err := timed("small", c.small, func(i int) (string, int, int) { return fmt.Sprintf(smallQuery, i*7919%n+1), 0, 2 }); err != nil {
		return nil, nil, err
	}
	if err := timed("rows1000", c.big, func(int) (string, int, int) { return rowsQuery, 1000, 1001 }); err != nil {
		return nil, nil, err
	}
	if err := timed("join", c.big, func(int) (string, int, int) { return joinQuery, 0, joinRows + 1 }); err != nil {
		return nil, nil, err
	}

	fmt.Fprintf(log, "stdio: throughput, %d processes and %d calls at once ...\n", c.procs, c.conc)
	for range c.rounds {
		for j, t := range live {
			qps, err := throughput(ctx, t, db, c.procs, c.perProc, nil, n)
			if err != nil {
				return nil, nil, fmt.Errorf("%s, %d processes: %w", t.name, c.procs, err)
			}
			add("procs", t.name, qps)
			if t.raw == nil {
				// The sqlite3 CLI is driven by raw lines already.
				add("procs-raw", t.name, qps)
			}
			if !t.concurrent {
				continue
			}
			qps, err = throughput(ctx, t, db, c.conc, c.perConc, sess[j], n)
			if err != nil {
				return nil, nil, fmt.Errorf("%s, %d calls at once: %w", t.name, c.conc, err)
			}
			add("conc", t.name, qps)
			if t.raw == nil {
				continue
			}
			rt := target{name: t.name, start: t.raw}
			if qps, err = throughput(ctx, rt, db, c.procs, c.perProc, nil, n); err != nil {
				return nil, nil, fmt.Errorf("%s, %d processes, raw client: %w", t.name, c.procs, err)
			}
			add("procs-raw", t.name, qps)
			shared, err := t.raw(ctx, db)
			if err != nil {
				return nil, nil, fmt.Errorf("%s, raw client: %w", t.name, err)
			}
			qps, err = throughput(ctx, rt, db, c.conc, c.perConc, shared, n)
			shared.close()
			if err != nil {
				return nil, nil, fmt.Errorf("%s, %d calls at once, raw client: %w", t.name, c.conc, err)
			}
			add("conc-raw", t.name, qps)
		}
	}
	return summarise(samples), stdioFigures(live, c), nil
}

// throughput runs workers x each small queries at once, each worker on its
// own new session, or all on shared when it is set; it returns queries/s.
func throughput(ctx context.Context, t target, db string, workers, each int, shared session, n int) (float64, error) {
	ss := make([]session, workers)
	for i := range ss {
		ss[i] = shared
		if shared == nil {
			s, err := t.start(ctx, db)
			if err != nil {
				return 0, err
			}
			defer s.close()
			ss[i] = s
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	t0 := time.Now()
	for w := range workers {
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
	return float64(workers*each) / el.Seconds(), nil
}

// summarise turns samples into results: latencies by their median (p50),
// with p90 for the small query; throughputs (q/s) by their median.
func summarise(samples map[string][]float64) map[string]result {
	res := map[string]result{}
	for k, v := range samples {
		slices.Sort(v)
		p50 := v[len(v)/2]
		switch {
		case hasFig(k, "procs"), hasFig(k, "conc"), hasFig(k, "procs-raw"), hasFig(k, "conc-raw"), hasFig(k, "http-conc"):
			res[k] = result{nsPerOp: 1e9 / p50, metrics: map[string]float64{"q/s": p50}}
		case hasFig(k, "small"), hasFig(k, "http-small"):
			res[k] = result{nsPerOp: p50}
			res[k+"/p90"] = result{nsPerOp: v[len(v)*9/10]}
		default:
			res[k] = result{nsPerOp: p50}
		}
	}
	return res
}

func hasFig(key, fig string) bool {
	return len(key) > len("stdio/"+fig+"/") && key[:len("stdio/"+fig+"/")] == "stdio/"+fig+"/"
}

// sideBySide builds the targets, generates the shop database and runs the
// stdio figures (unless httpOnly) and the HTTP ones, all in a temporary
// folder it removes.
func sideBySide(ctx context.Context, c stdioConfig, httpOnly bool, log io.Writer) (map[string]result, []figure, error) {
	dir, err := os.MkdirTemp("", "mcp-sqlite-memory-bench-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(log, "stdio: building the server and the do-nothing server ...")
	ts, notes, err := buildTargets(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range notes {
		fmt.Fprintln(log, "note:", n)
	}
	fmt.Fprintf(log, "stdio: generating the shop database (%d customers, %d orders, %d items) ...\n", c.shop.customers, c.shop.orders, c.shop.items)
	db, err := makeShop(ctx, dir, c.shop)
	if err != nil {
		return nil, nil, err
	}
	if err := noopAnswer(ctx, dir, db); err != nil {
		return nil, nil, err
	}
	res, figs := map[string]result{}, []figure(nil)
	if !httpOnly {
		if res, figs, err = stdioRun(ctx, ts, db, c, log); err != nil {
			return nil, nil, err
		}
	}
	hts, notes := httpTargets(dir)
	for _, n := range notes {
		fmt.Fprintln(log, "note:", n)
	}
	samples, live, err := httpRun(ctx, hts, db, c, log)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range summarise(samples) {
		res[k] = v
	}
	return res, append(figs, httpFigures(live)...), nil
}

// noopAnswer writes the sqlite3 CLI's answer to the 1000-row query, with a
// trailer, where the do-nothing server reads the text of its large answers
// (noop/main.go), so the floor of a large answer carries the same bytes.
// Without the CLI the floor's large answer stays one row.
func noopAnswer(ctx context.Context, dir, db string) error {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		return nil
	}
	out, err := exec.CommandContext(ctx, bin, "-batch", "-csv", "-header", db, rowsQuery).Output()
	if err != nil {
		return fmt.Errorf("sqlite3 %s: %w", rowsQuery, err)
	}
	path := filepath.Join(dir, "noop-answer.csv")
	if err := os.WriteFile(path, append(out, "# 1000 rows"...), 0o600); err != nil {
		return err
	}
	return os.Setenv("MCP_SQLITE_BENCH_NOOP_ANSWER", path)
}
