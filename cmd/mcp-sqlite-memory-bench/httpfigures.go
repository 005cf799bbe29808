package main

import (
	"fmt"
	"slices"
	"strings"
)

// httpRowName names an HTTP row: the era, the figure, the target compared
// with, e.g. "http, session era: small query p50 vs do-nothing SDK server".
func httpRowName(e era, what, vs string) string {
	return "http, " + e.name + ": " + what + " vs " + vs
}

// httpFigures are the Streamable HTTP rows (httpbench.go) for the clients
// that ran, era by era: ours against the do-nothing server in the same era
// (the session era against the SDK's default handler, the stateless era
// against its stateless one), the baseline build and every HTTP peer in
// the same era. The budgets (docs/decisions.md#performance-budgets): p50
// and p90 at most 1.25x the floor's and no slower than a peer's, the 16
// clients' rate at least 0.9x the floor's and 2x a peer's (a ratio of the
// other's rate over ours, as the stdio rows). Two report rows compare the eras themselves: what the
// stateless era costs the do-nothing server, and this server.
func httpFigures(live []*httpClient) []figure {
	has := map[string]bool{}
	var peerNames []string
	for _, hc := range live {
		has[hc.key()] = true
		if hc.t.peer && !slices.Contains(peerNames, hc.t.name) {
			peerNames = append(peerNames, hc.t.name)
		}
	}
	key := func(fig, target string, e era) string { return "stdio/" + fig + "/" + httpKey(target, e) }
	conc := fmt.Sprintf("%d clients at once, SDK client", httpClients)
	var out []figure
	for _, e := range httpEras {
		if !has[httpKey(oursName, e)] {
			continue
		}
		for _, vs := range append([]string{floorName, baselineName}, peerNames...) {
			if !has[httpKey(vs, e)] {
				continue
			}
			var lat, rate float64
			switch {
			case vs == floorName:
				lat, rate = 1.25, 1/0.9
			case strings.HasPrefix(vs, "peer "):
				lat, rate = 1, 0.5
			}
			out = append(out,
				figure{name: httpRowName(e, "small query p50", vs), bench: key("http-small", oursName, e), baseline: key("http-small", vs, e), maxRatio: lat},
				figure{name: httpRowName(e, "small query p90", vs), bench: key("http-small", oursName, e) + "/p90", baseline: key("http-small", vs, e) + "/p90", maxRatio: lat},
				figure{name: httpRowName(e, conc, vs), bench: key("http-conc", oursName, e), baseline: key("http-conc", vs, e), metric: "q/s", maxRatio: rate})
		}
	}
	for _, t := range []string{floorName, oursName} {
		if has[httpKey(t, sessionEra)] && has[httpKey(t, statelessEra)] {
			out = append(out, figure{name: "http: " + t + ", small query p50, stateless era vs session era",
				bench: key("http-small", t, statelessEra), baseline: key("http-small", t, sessionEra)})
		}
	}
	return out
}
