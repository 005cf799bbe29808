package main

import (
	"fmt"
	"strings"
)

// Target names the figures compare.
const (
	oursName  = "mcp-sqlite-memory"
	floorName = "do-nothing SDK server"
	cliName   = "sqlite3 CLI"
	// baselineName is another build of this server (see baselineEnv).
	baselineName = "baseline build"
)

// stdioFigures are the side-by-side rows for the targets that ran: each
// figure of ours against the floor, the sqlite3 CLI and every peer, with
// its budget (docs/decisions.md#performance-budgets) where one is set:
// against the do-nothing server, and ahead of every peer (a ratio of at
// most 1x). For throughput (q/s, higher is better) the ratio is the
// other's rate over ours, so "at least 0.85x the floor's rate" is a ratio
// of at most 1/0.85.
func stdioFigures(live []target, c stdioConfig) []figure {
	has := map[string]bool{}
	var peerNames []string
	for _, t := range live {
		has[t.name] = true
		if strings.HasPrefix(t.name, "peer ") {
			peerNames = append(peerNames, t.name)
		}
	}
	key := func(fig, target string) string { return "stdio/" + fig + "/" + target }
	var out []figure
	row := func(label, fig, suffix, vs string, metric string, maxRatio float64) {
		if !has[vs] {
			return
		}
		out = append(out, figure{name: label + " vs " + vs, bench: key(fig, oursName) + suffix,
			baseline: key(fig, vs) + suffix, metric: metric, maxRatio: maxRatio})
	}
	others := func(label, fig, suffix, metric string, budget map[string]float64) {
		for _, vs := range append([]string{floorName, cliName, baselineName}, peerNames...) {
			if vs == floorName && fig == "join" {
				continue // the floor does no SQL work
			}
			b := budget[vs]
			if strings.HasPrefix(vs, "peer ") {
				b = budget["peer"]
			}
			row(label, fig, suffix, vs, metric, b)
		}
	}
	others("stdio: small query p50", "small", "", "", map[string]float64{floorName: 1.25, "peer": 1})
	others("stdio: small query p90", "small", "/p90", "", map[string]float64{floorName: 1.25, "peer": 1})
	// Throughput through the SDK's client is reported; the budget applies
	// to the raw load generator's figures (rawclient.go says why).
	others(fmt.Sprintf("stdio: %d processes x %d small queries, SDK client", c.procs, c.perProc), "procs", "", "q/s", nil)
	for _, vs := range append([]string{floorName, baselineName}, peerNames...) {
		row(fmt.Sprintf("stdio: %d calls at once, one process, SDK client", c.conc), "conc", "", vs, "q/s", 0)
	}
	// Throughput ratios are the other's rate over ours: at least 0.85x the
	// floor's rate is a ratio of at most 1/0.85.
	others(fmt.Sprintf("stdio: %d processes x %d small queries, raw client", c.procs, c.perProc), "procs-raw", "", "q/s", map[string]float64{"peer": 1, floorName: 1 / 0.85})
	for _, vs := range append([]string{floorName, baselineName}, peerNames...) {
		b := 0.0
		switch {
		case strings.HasPrefix(vs, "peer "):
			b = 1
		case vs == floorName:
			b = 1 / 0.95
		}
		row(fmt.Sprintf("stdio: %d calls at once, one process, raw client", c.conc), "conc-raw", "", vs, "q/s", b)
	}
	// The do-nothing server carries the same 1000-row text (noopAnswer):
	// no slower than it.
	others("stdio: 1000x6 rows to CSV", "rows1000", "", "", map[string]float64{floorName: 1, "peer": 1})
	others("stdio: 3-table join + GROUP BY", "join", "", "", map[string]float64{cliName: 1.05, "peer": 1})
	others("stdio: start to first tools/list", "start", "", "", map[string]float64{floorName: 1.2, "peer": 1})
	// The floor's own ratios to the CLI: what no server on this SDK can
	// go below, whatever it does (the do-nothing server's large answer
	// is the CLI's own 1000-row text, noopAnswer).
	if has[floorName] && has[cliName] {
		for _, f := range []struct{ label, fig string }{
			{"1000x6 rows' text to CSV", "rows1000"}, {"start to first tools/list", "start"},
		} {
			out = append(out, figure{name: "stdio: floor: do-nothing SDK server, " + f.label + " vs " + cliName,
				bench: key(f.fig, floorName), baseline: key(f.fig, cliName)})
		}
	}
	others("stdio: start to first read_query answer", "firstquery", "", "", nil)
	return out
}
