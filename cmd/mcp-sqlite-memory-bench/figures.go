package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// jobs are the go test runs, grouped by package.
func jobs(short bool, benchtime string) []job {
	all := []job{
		{pkg: "./test/bench/", pattern: "ReadQueryPK|CSV1000x6|WriteInsert|SDKFloor", benchtime: benchtime},
		{pkg: "./adapters/sqlite/", pattern: "ProgramCheck", benchtime: benchtime},
		{pkg: "./test/bench/", pattern: "ColdStart", benchtime: "20x"},
		{pkg: "./test/bench/", pattern: "AppendEvent", benchtime: benchtime},
		{pkg: "./test/bench/", pattern: "AuditCommit", benchtime: benchtime},
		{pkg: "./test/bench/", pattern: "ToolAllocs", benchtime: "200x"},
		{pkg: "./test/bench/", pattern: "LargeResultRSS", benchtime: "3x"},
		{pkg: "./test/bench/", pattern: "BombRSS", benchtime: "2x"},
		{pkg: "./domain/", pattern: "TableWriter1000x6", benchtime: benchtime},
		{pkg: "./test/bench/", pattern: "VerifyChain1M", benchtime: "1x", slow: true},
		{pkg: "./test/searchbench/", pattern: "RipgrepFromSQLite/lines=1000000|Regexp2FromSQLite/lines=1000000|BaselineRgPipeline/lines=1000000", benchtime: "1x", slow: true},
		{pkg: "./adapters/snapshot/", pattern: "Snapshot", benchtime: "1x", slow: true},
	}
	var out []job
	for _, j := range all {
		if !short || !j.slow {
			out = append(out, j)
		}
	}
	return out
}

// figure is one row of the table.
type figure struct {
	name     string
	bench    string // benchmark measured
	baseline string // benchmark it is compared with, same run
	// metric, when set, compares that custom metric (higher is better)
	// instead of ns/op (lower is better).
	metric string
	// ratioMetric names a metric in which the benchmark reports its own
	// ratio to a baseline it measured alongside (interleaved runs).
	ratioMetric string
	// maxRatio is the budget on figure/baseline cost; 0 means report only.
	maxRatio float64
	// maxMS is an absolute budget in milliseconds per op; minMetric an
	// absolute floor on metric; maxMetric an absolute ceiling on a metric
	// where lower is better (memory), which also turns the ratio around.
	maxMS, minMetric, maxMetric float64
	// alsoMetric is a second metric shown beside metric (allocs/op beside
	// B/op).
	alsoMetric string
	slow       bool
}

// toolAllocFigures are the allocations of each tool's call through the
// core (BenchmarkToolAllocs): read_query's budget is 20 KB
// (docs/decisions.md#performance-budgets).
func toolAllocFigures() []figure {
	var out []figure
	for _, d := range domain.Tools() {
		t := d.Name
		f := figure{name: "allocated per call, core: " + t, bench: "BenchmarkToolAllocs/" + t, metric: "B/op", alsoMetric: "allocs/op"}
		if t == domain.ToolReadQuery {
			f.maxMetric = 20 << 10
		}
		out = append(out, f)
	}
	return out
}

func figures(short bool) []figure {
	all := []figure{
		{name: "read_query 1 row by PK, MCP in-process", bench: "BenchmarkReadQueryPK/mcp", baseline: "BenchmarkReadQueryPK/database_sql", maxRatio: 5},
		{name: "  MCP SDK floor (no-op tool)", bench: "BenchmarkSDKFloor", baseline: "BenchmarkReadQueryPK/database_sql"},
		{name: "1000x6 rows to capped CSV", bench: "BenchmarkCSV1000x6/render_capped_csv", baseline: "BenchmarkCSV1000x6/database_sql_scan", maxRatio: 1.5},
		{name: "write_query 1-row INSERT, MCP in-process", bench: "BenchmarkWriteInsert/mcp", baseline: "BenchmarkWriteInsert/database_sql"},
		{name: "EXPLAIN layer, primary-key read", bench: "BenchmarkProgramCheck/primary_key_lookup", ratioMetric: "ratio"},
		{name: "EXPLAIN layer, join with ORDER BY", bench: "BenchmarkProgramCheck/join_order_limit", ratioMetric: "ratio"},
		{name: "read_query 1 row, core only, row committed first", bench: "BenchmarkAuditCommit/read_query_serial", baseline: "BenchmarkAuditCommit/store_read_no_row"},
		{name: "  its audit row's commit alone", bench: "BenchmarkAuditCommit/row_commit_serial", baseline: "BenchmarkAuditCommit/store_read_no_row"},
		{name: "  audit rows, 8 callers per core (group commit)", bench: "BenchmarkAuditCommit/row_commit_parallel", baseline: "BenchmarkAuditCommit/row_commit_serial"},
		{name: "  read_query, 8 callers per core (group commit)", bench: "BenchmarkAuditCommit/read_query_parallel", baseline: "BenchmarkAuditCommit/read_query_serial"},
		{name: "append_event, one process (appends/s)", bench: "BenchmarkAppendEvent/one_process", metric: "appends/s"},
		{name: "append_event, four servers one file (appends/s)", bench: "BenchmarkAppendEvent/four_servers_one_file", metric: "appends/s"},
		{name: "1 GB result, first page: peak RSS", bench: "BenchmarkLargeResultRSS/1GB_result", baseline: "BenchmarkLargeResultRSS/select_1", metric: "peak-MB", maxMetric: 100},
		{name: "1 GB result, sorted: peak RSS", bench: "BenchmarkLargeResultRSS/1GB_result_sorted", baseline: "BenchmarkLargeResultRSS/select_1", metric: "peak-MB", maxMetric: 100},
		{name: "row of 150 x 8 MB columns: peak RSS", bench: "BenchmarkBombRSS/row_150x8MB", baseline: "BenchmarkBombRSS/select_1", metric: "peak-MB", maxMetric: 150},
		{name: "row of 2000 x 8 MB columns: peak RSS", bench: "BenchmarkBombRSS/row_2000x8MB", baseline: "BenchmarkBombRSS/select_1", metric: "peak-MB", maxMetric: 150},
		{name: "64 concurrent reads of a 16 MB row: peak RSS", bench: "BenchmarkBombRSS/concurrent_64x16MB", baseline: "BenchmarkBombRSS/select_1", metric: "peak-MB", maxMetric: 150},
		{name: "search 8 MiB matching everywhere, regexp2: peak RSS", bench: "BenchmarkBombRSS/search_every_char_regexp2", baseline: "BenchmarkBombRSS/select_1", metric: "peak-MB", maxMetric: 150},
		{name: "search 8 MiB matching everywhere, ripgrep: peak RSS", bench: "BenchmarkBombRSS/search_every_char_ripgrep", baseline: "BenchmarkBombRSS/select_1", metric: "peak-MB", maxMetric: 150},
		{name: "cold start to first tools/list", bench: "BenchmarkColdStart", maxMS: 50},
	}
	all = append(all, toolAllocFigures()...)
	all = append(all, []figure{
		{name: "verify_chain, 1M events (events/s)", bench: "BenchmarkVerifyChain1M/verify_chain", baseline: "BenchmarkVerifyChain1M/sha256_floor", metric: "events/s", minMetric: 300000, slow: true},
		{name: "search 1M values from SQLite, ripgrep, literal", bench: "BenchmarkRipgrepFromSQLite/lines=1000000/literal", baseline: "BenchmarkBaselineRgPipeline/lines=1000000/literal", maxRatio: 3, slow: true},
		{name: "search 1M values from SQLite, ripgrep, regex", bench: "BenchmarkRipgrepFromSQLite/lines=1000000/regex", baseline: "BenchmarkBaselineRgPipeline/lines=1000000/regex", maxRatio: 3, slow: true},
		{name: "search 1M values from SQLite, regexp2, literal", bench: "BenchmarkRegexp2FromSQLite/lines=1000000/literal", baseline: "BenchmarkBaselineRgPipeline/lines=1000000/literal", maxRatio: 3, slow: true},
		{name: "search 1M values from SQLite, regexp2, regex", bench: "BenchmarkRegexp2FromSQLite/lines=1000000/regex", baseline: "BenchmarkBaselineRgPipeline/lines=1000000/regex", maxRatio: 3, slow: true},
		{name: "search 1M values from SQLite, regexp2, ignore-case", bench: "BenchmarkRegexp2FromSQLite/lines=1000000/ignore-case", baseline: "BenchmarkBaselineRgPipeline/lines=1000000/ignore-case", maxRatio: 3, slow: true},
		{name: "snapshot 200 MB vs cp", bench: "BenchmarkSnapshot/Snapshotter", baseline: "BenchmarkSnapshot/cp", slow: true},
		{name: "snapshot 200 MB vs sqlite3 .backup", bench: "BenchmarkSnapshot/Snapshotter", baseline: "BenchmarkSnapshot/sqlite3-backup", slow: true},
	}...)
	var out []figure
	for _, f := range all {
		if !short || !f.slow {
			out = append(out, f)
		}
	}
	return out
}

func human(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// printTable writes the table; a figure whose benchmark did not run shows
// "missing" and fails the command, so a renamed benchmark is noticed.
func printTable(w io.Writer, figs []figure, res map[string]result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tmeasured\tbaseline\tratio\tbudget\tverdict")
	var missing, over []string
	for _, f := range figs {
		r, ok := res[f.bench]
		base, bok := res[f.baseline]
		if !ok || (f.baseline != "" && !bok) {
			missing = append(missing, f.name)
			fmt.Fprintf(tw, "%s\tmissing\t\t\t\t\n", f.name)
			continue
		}
		measured, baseline, ratio, budget, verdict := human(r.nsPerOp), "", "", "report", "ok"
		var cost float64
		if f.ratioMetric != "" {
			cost = r.metrics[f.ratioMetric]
			baseline = "same benchmark"
		} else if f.metric != "" {
			v := r.metrics[f.metric]
			measured = fmt.Sprintf("%.0f %s", v, f.metric)
			if f.alsoMetric != "" {
				measured += fmt.Sprintf(", %.0f %s", r.metrics[f.alsoMetric], f.alsoMetric)
			}
			if bok && v > 0 {
				baseline = fmt.Sprintf("%.0f %s", base.metrics[f.metric], f.metric)
				cost = base.metrics[f.metric] / v
				if f.maxMetric > 0 {
					cost = v / base.metrics[f.metric]
				}
			}
			if f.maxMetric > 0 {
				budget = fmt.Sprintf("<= %.0f %s", f.maxMetric, f.metric)
				if v > f.maxMetric {
					verdict = "OVER BUDGET"
				}
			}
			if f.minMetric > 0 {
				budget = fmt.Sprintf(">= %.0f %s", f.minMetric, f.metric)
				if v < f.minMetric {
					verdict = "OVER BUDGET"
				}
			}
		} else if bok {
			baseline = human(base.nsPerOp)
			cost = r.nsPerOp / base.nsPerOp
		}
		if cost > 0 {
			ratio = fmt.Sprintf("%.2fx", cost)
		}
		if f.maxRatio > 0 {
			budget = fmt.Sprintf("<= %gx", f.maxRatio)
			if f.metric == "q/s" {
				// The ratio is the baseline's rate over ours: say the
				// budget as the rate it asks for.
				budget = fmt.Sprintf("<= %.3gx (rate >= %.3gx)", f.maxRatio, 1/f.maxRatio)
			}
			if cost > f.maxRatio {
				verdict = "OVER BUDGET"
			}
		}
		if f.maxMS > 0 {
			budget = fmt.Sprintf("< %.0f ms", f.maxMS)
			if r.nsPerOp/1e6 >= f.maxMS {
				verdict = "OVER BUDGET"
			}
		}
		if verdict != "ok" {
			over = append(over, f.name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.name, measured, baseline, ratio, budget, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(over) > 0 {
		fmt.Fprintf(w, "\nover budget: %s\n", strings.Join(over, "; "))
	}
	if len(missing) > 0 {
		return fmt.Errorf("benchmarks missing for: %s", strings.Join(missing, "; "))
	}
	return nil
}
