package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSideBySideRunsEveryFigure drives the built server, the do-nothing
// server and the sqlite3 CLI over a tiny shop database and checks the table
// has every row with a measured figure. It asserts no speed.
func TestSideBySideRunsEveryFigure(t *testing.T) {
	_, err := exec.LookPath("sqlite3")
	require.NoError(t, err, "the sqlite3 CLI is a baseline of the side-by-side figures")
	t.Setenv(peersEnv, "")
	t.Setenv(httpPeersEnv, "")
	tiny := stdioConfig{shop: shopSize{customers: 1000, orders: 2000, items: 6000},
		small: 4, big: 1, starts: 1, procs: 2, perProc: 3, conc: 3, perConc: 2, rounds: 1}
	var log bytes.Buffer
	res, figs, err := sideBySide(context.Background(), tiny, false, &log)
	require.NoError(t, err, log.String())
	var out bytes.Buffer
	require.NoError(t, printTable(&out, figs, res), "every figure's benchmark ran")
	for _, row := range []string{
		"small query p50 vs do-nothing SDK server", "small query p50 vs sqlite3 CLI",
		"small query p90 vs do-nothing SDK server", "2 processes x 3 small queries, SDK client vs sqlite3 CLI",
		"3 calls at once, one process, SDK client vs do-nothing SDK server",
		"2 processes x 3 small queries, raw client vs sqlite3 CLI", "2 processes x 3 small queries, raw client vs do-nothing SDK server",
		"3 calls at once, one process, raw client vs do-nothing SDK server", "1000x6 rows to CSV vs sqlite3 CLI",
		"3-table join + GROUP BY vs sqlite3 CLI", "start to first tools/list vs sqlite3 CLI",
		"1000x6 rows to CSV vs do-nothing SDK server", "floor: do-nothing SDK server, 1000x6 rows' text to CSV vs sqlite3 CLI",
		"floor: do-nothing SDK server, start to first tools/list vs sqlite3 CLI",
		"start to first read_query answer vs sqlite3 CLI",
		"http, session era: small query p50 vs do-nothing SDK server", "http, session era: small query p90 vs do-nothing SDK server",
		"http, session era: 16 clients at once, SDK client vs do-nothing SDK server",
		"http, stateless era: small query p50 vs do-nothing SDK server", "http, stateless era: small query p90 vs do-nothing SDK server",
		"http, stateless era: 16 clients at once, SDK client vs do-nothing SDK server",
		"http: do-nothing SDK server, small query p50, stateless era vs session era",
		"http: mcp-sqlite-memory, small query p50, stateless era vs session era",
	} {
		assert.Contains(t, out.String(), row)
	}
	assert.NotContains(t, out.String(), "missing")
	assert.Contains(t, out.String(), "<= 1.25x", "the issue's budget is printed as set")
	assert.Greater(t, res["stdio/procs/"+oursName].metrics["q/s"], 0.0)
	assert.Greater(t, res["stdio/procs-raw/"+oursName].metrics["q/s"], 0.0)
	assert.Greater(t, res["stdio/conc-raw/"+oursName].metrics["q/s"], 0.0)
	for _, e := range httpEras {
		assert.Greater(t, res["stdio/http-conc/"+httpKey(oursName, e)].metrics["q/s"], 0.0, e.name)
		assert.Greater(t, res["stdio/http-small/"+httpKey(floorName, e)].nsPerOp, 0.0, e.name)
	}
	assert.Contains(t, out.String(), "rate >= 0.95x", "the 16-at-once budget against the floor")
	assert.Contains(t, out.String(), "rate >= 0.85x", "the 4-process budget against the floor")
	assert.Regexp(t, `stdio: start to first tools/list vs do-nothing SDK server .*<= 1\.2x`, out.String(), "the start budget against the floor")
	assert.Regexp(t, `stdio: 1000x6 rows to CSV vs do-nothing SDK server .*<= 1x`, out.String(), "no slower than the floor carrying the same text")
}

func TestPeersFromEnvAndPath(t *testing.T) {
	ts, notes := peers("node=npx -y some-server {db}; bad", nil)
	require.Len(t, ts, 1)
	assert.Equal(t, "peer node", ts[0].name)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "bad")
	ts, notes = peers("", func(name string) (string, error) {
		if name == knownPeers[0] {
			return "/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	})
	require.Len(t, ts, 1)
	assert.Equal(t, "peer "+knownPeers[0], ts[0].name)
	assert.Len(t, notes, len(knownPeers)-1)
	assert.True(t, strings.Contains(notes[0], peersEnv))
}

// TestPickQueryTool: read_query wins wherever it is listed; otherwise the
// first tool naming query or sql, with its SQL and limit arguments as its
// schema names them. Both clients (SDK and raw) pick with this one rule.
func TestPickQueryTool(t *testing.T) {
	tool := func(name string, props ...string) listedTool {
		var l listedTool
		l.Name = name
		l.InputSchema.Properties = map[string]json.RawMessage{}
		for _, p := range props {
			l.InputSchema.Properties[p] = json.RawMessage(`{}`)
		}
		return l
	}
	for _, c := range []struct {
		tools []listedTool
		want  queryTool
	}{
		{[]listedTool{tool("run_sql", "sql"), tool("read_query", "query", "limit")}, queryTool{"read_query", "query", "limit"}},
		{[]listedTool{tool("list"), tool("run_sql", "sql"), tool("query_db", "query")}, queryTool{"run_sql", "sql", ""}},
		{[]listedTool{tool("query", "statement")}, queryTool{"query", "query", ""}},
	} {
		got, err := pickQueryTool(c.tools)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
	_, err := pickQueryTool([]listedTool{tool("list_tables")})
	assert.ErrorContains(t, err, "no query tool")
}
