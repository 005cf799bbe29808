package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTTPPeersFromEnv: MCP_SQLITE_BENCH_PEERS's syntax, and an entry that
// says neither {port} nor {addr} is skipped, since the bench could not
// tell the peer where to listen.
func TestHTTPPeersFromEnv(t *testing.T) {
	ts, notes := httpPeers("dbhub=node dbhub.js --transport http --port {port} --dsn sqlite://{db}; other=srv --listen {addr} ; nowhere=srv {db}; bad;")
	require.Len(t, ts, 2)
	assert.Equal(t, "peer dbhub", ts[0].name)
	assert.Equal(t, []string{"node", "dbhub.js", "--transport", "http", "--port", "{port}", "--dsn", "sqlite://{db}"}, ts[0].argv)
	assert.Equal(t, "peer other", ts[1].name)
	for _, p := range ts {
		assert.True(t, p.peer)
		assert.Equal(t, httpEras, p.eras, "a peer is driven in both eras")
	}
	require.Len(t, notes, 2)
	assert.Contains(t, notes[0], "neither {port} nor {addr}")
	assert.Contains(t, notes[1], "not name=command")
	ts, notes = httpPeers("")
	assert.Empty(t, ts)
	assert.Empty(t, notes)
}

// TestHTTPFiguresPerEra: each era's rows compare ours with the floor, the
// baseline and the peers driven in that same era, with the budgets of
// docs/decisions.md#performance-budgets on the floor and peer rows only;
// an era a target did not run in has no row.
func TestHTTPFiguresPerEra(t *testing.T) {
	peer := httpTarget{name: "peer dbhub", peer: true}
	var live []*httpClient
	for _, c := range []struct {
		t httpTarget
		e era
	}{
		{httpTarget{name: oursName}, sessionEra}, {httpTarget{name: oursName}, statelessEra},
		{httpTarget{name: floorName, floor: true}, sessionEra}, {httpTarget{name: floorName, floor: true}, statelessEra},
		{peer, statelessEra},
	} {
		live = append(live, &httpClient{t: c.t, era: c.e})
	}
	byName := map[string]figure{}
	for _, f := range httpFigures(live) {
		byName[f.name] = f
	}
	assert.Len(t, byName, 3*3+2)
	f := byName["http, session era: small query p50 vs do-nothing SDK server"]
	assert.Equal(t, "stdio/http-small/mcp-sqlite-memory, session era", f.bench)
	assert.Equal(t, "stdio/http-small/do-nothing SDK server, session era", f.baseline)
	assert.Equal(t, 1.25, f.maxRatio)
	f = byName["http, stateless era: small query p90 vs do-nothing SDK server"]
	assert.Equal(t, "stdio/http-small/do-nothing SDK server, stateless era/p90", f.baseline)
	f = byName["http, stateless era: 16 clients at once, SDK client vs do-nothing SDK server"]
	assert.Equal(t, "q/s", f.metric)
	assert.InDelta(t, 1/0.9, f.maxRatio, 1e-9, "at least 0.9x the floor's rate")
	f = byName["http, stateless era: 16 clients at once, SDK client vs peer dbhub"]
	assert.Equal(t, "stdio/http-conc/peer dbhub, stateless era", f.baseline)
	assert.Equal(t, 0.5, f.maxRatio, "at least 2x the peer's rate")
	assert.Equal(t, 1.0, byName["http, stateless era: small query p50 vs peer dbhub"].maxRatio, "no slower than a peer")
	assert.NotContains(t, byName, "http, session era: small query p50 vs peer dbhub", "the peer did not run in that era")
	f = byName["http: do-nothing SDK server, small query p50, stateless era vs session era"]
	assert.Equal(t, "stdio/http-small/do-nothing SDK server, stateless era", f.bench)
	assert.Zero(t, f.maxRatio)
	assert.Contains(t, byName, "http: mcp-sqlite-memory, small query p50, stateless era vs session era")
}
