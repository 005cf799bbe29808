package main

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// job is one go test -bench invocation.
type job struct {
	pkg, pattern, benchtime string
	slow                    bool
}

// result is one benchmark line: ns/op and any custom metrics.
type result struct {
	nsPerOp float64
	metrics map[string]float64
}

func goTestBench(ctx context.Context, j job) ([]byte, error) {
	args := []string{"test", "-run", "^$", "-bench", j.pattern, "-benchtime", j.benchtime, "-count", "1", "-timeout", "30m", j.pkg}
	cmd := exec.CommandContext(ctx, "go", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// parse reads go test's benchmark lines into results keyed by name without
// the GOMAXPROCS suffix, e.g. "BenchmarkReadQueryPK/mcp".
func parse(out []byte) map[string]result {
	res := map[string]result{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		r := result{metrics: map[string]float64{}}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			if f[i+1] == "ns/op" {
				r.nsPerOp = v
			} else {
				r.metrics[f[i+1]] = v
			}
		}
		res[m[1]] = r
	}
	return res
}
