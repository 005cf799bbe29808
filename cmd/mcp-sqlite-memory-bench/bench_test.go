package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `goos: linux
BenchmarkReadQueryPK/mcp-2         	    2520	    990645 ns/op
BenchmarkReadQueryPK/database_sql-2         	   54912	     46731 ns/op
BenchmarkVerifyChain1M/verify_chain-2  1  2000000000 ns/op  500000 events/s
BenchmarkVerifyChain1M/sha256_floor-2  1  1000000000 ns/op  1000000 events/s
BenchmarkLargeResultRSS/select_1-2  3  1143913 ns/op  16.00 peak-MB
BenchmarkLargeResultRSS/1GB_result-2  3  4415737 ns/op  120.00 peak-MB
PASS`

func TestParse(t *testing.T) {
	res := parse([]byte(sample))
	assert.Equal(t, result{nsPerOp: 990645, metrics: map[string]float64{}}, res["BenchmarkReadQueryPK/mcp"])
	assert.Equal(t, 500000.0, res["BenchmarkVerifyChain1M/verify_chain"].metrics["events/s"])
	assert.Len(t, res, 6)
}

func TestTableMarksOverBudgetAndMissing(t *testing.T) {
	res := parse([]byte(sample))
	var out bytes.Buffer
	err := printTable(&out, []figure{
		{name: "pk", bench: "BenchmarkReadQueryPK/mcp", baseline: "BenchmarkReadQueryPK/database_sql", maxRatio: 5},
		{name: "verify", bench: "BenchmarkVerifyChain1M/verify_chain", baseline: "BenchmarkVerifyChain1M/sha256_floor", metric: "events/s", minMetric: 300000},
	}, res)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "21.20x")
	assert.Contains(t, out.String(), "over budget: pk")
	assert.Contains(t, out.String(), "2.00x")
	out.Reset()
	err = printTable(&out, []figure{
		{name: "rss", bench: "BenchmarkLargeResultRSS/1GB_result", baseline: "BenchmarkLargeResultRSS/select_1", metric: "peak-MB", maxMetric: 100},
	}, res)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "7.50x", "lower is better: the ratio is measured over baseline")
	assert.Contains(t, out.String(), "<= 100 peak-MB")
	assert.Contains(t, out.String(), "over budget: rss")
	err = printTable(&out, []figure{{name: "gone", bench: "BenchmarkNope"}}, res)
	assert.Error(t, err)
}

func TestTableShowsToolAllocations(t *testing.T) {
	res := parse([]byte("BenchmarkToolAllocs/read_query-2  200  285607 ns/op  6684 B/op  89 allocs/op\n" +
		"BenchmarkToolAllocs/search_text-2  200  1859956 ns/op  115972 B/op  4171 allocs/op\n"))
	var out bytes.Buffer
	figs := toolAllocFigures()
	require.Len(t, figs, 15, "one figure per tool")
	err := printTable(&out, figs[:1], res)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "6684 B/op, 89 allocs/op")
	assert.Contains(t, out.String(), "<= 20480 B/op")
	assert.NotContains(t, out.String(), "over budget")
	err = printTable(&out, figs, res)
	assert.Error(t, err, "a tool whose benchmark did not run is missing")
}
