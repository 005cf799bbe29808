// Package searchbench_test measures the search_text budget of
// docs/decisions.md#performance-budgets: each
// text search engine over 1,000,000 values of about 100 characters, against
// the pipeline `sqlite3 -csv db 'select v from t' | rg --json` on the same
// values, measured in the same run (budget: 3x), and the peak RSS of this
// process while searching (it must not grow with the number of lines).
//
//	go test ./test/searchbench -run '^$' -bench . -benchtime 1x
package searchbench_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // reads the benchmark database like search_text does

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// sizes are the line counts measured: the budget's million, and a tenth of
// it to show that peak RSS does not follow the line count.
var sizes = []int{100_000, 1_000_000}

// queries match about 1% of the lines.
var queries = []struct {
	name string
	q    domain.SearchQuery
}{
	{"literal", domain.SearchQuery{Pattern: "needle"}},
	{"regex", domain.SearchQuery{Pattern: `ne+dle-\d+`}},
	{"ignore-case", domain.SearchQuery{Pattern: "NEEDLE", IgnoreCase: true}},
}

var words = strings.Fields(`the a of and to in is that for it as with was on be by at this have from or
	one had but not what all were when we there can an your which their said if do will each about how up
	out them then she many some so these would other into has more her two like him see time could no make
	than first been its who now people my made over did down only way find use may water long little very
	after words called just where most know café naïve résumé über straße señor déjà smørrebrød ça mañana
	日本 データ 検索 поиск данные ключ δεδομένα 🙂 ✓ ⏎ value row column table index query select update`)

// lines yields n deterministic lines of about 100 characters; one in a
// hundred holds a "needle-<k>" token. They cycle through a pool of distinct
// lines made once, so that producing them costs next to nothing and the
// benchmarks time the engines.
func lines(n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range n {
			if !yield(linePool()[i%len(linePool())]) {
				return
			}
		}
	}
}

var linePool = sync.OnceValue(func() []string {
	rnd := rand.New(rand.NewPCG(42, 7))
	pool := make([]string, 10_000)
	var b strings.Builder
	for i := range pool {
		b.Reset()
		needle := i%100 == 37
		for b.Len() < 100 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			if needle && b.Len() > 40 {
				b.WriteString("needle-" + strconv.Itoa(i))
				needle = false
				continue
			}
			b.WriteString(words[rnd.IntN(len(words))])
		}
		pool[i] = b.String()
	}
	return pool
})

// database returns a SQLite file holding lines(n) in t(v), built once per
// size with the sqlite3 CLI.
var databases sync.Map // n -> func() (string, error)

func database(b *testing.B, n int) string {
	b.Helper()
	build, _ := databases.LoadOrStore(n, sync.OnceValues(func() (string, error) { return buildDatabase(n) }))
	path, err := build.(func() (string, error))()
	if err != nil {
		b.Fatal(err)
	}
	return path
}

func buildDatabase(n int) (string, error) {
	dir, err := os.MkdirTemp("", "searchbench-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "values.db")
	csv := filepath.Join(dir, "values.csv")
	f, err := os.Create(csv)
	if err != nil {
		return "", err
	}
	for line := range lines(n) {
		fmt.Fprintln(f, line) // no line holds a comma, quote or line break
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	cmd := exec.Command("sqlite3", path, "CREATE TABLE t(v TEXT)", ".import --csv "+csv+" t")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("sqlite3: %v: %s", err, out)
	}
	return path, os.Remove(csv)
}

func TestMain(m *testing.M) {
	code := m.Run()
	databases.Range(func(_, build any) bool {
		if path, err := build.(func() (string, error))(); err == nil {
			_ = os.RemoveAll(filepath.Dir(path))
		}
		return true
	})
	os.Exit(code)
}

func requireTools(b *testing.B, tools ...string) map[string]string {
	b.Helper()
	paths := map[string]string{}
	for _, tool := range tools {
		path, err := exec.LookPath(tool)
		if err != nil {
			if os.Getenv("CI") != "" {
				b.Fatalf("%s is not on PATH, and CI must measure it", tool)
			}
			b.Skipf("%s is not on PATH", tool)
		}
		paths[tool] = path
	}
	return paths
}

func BenchmarkRipgrep(b *testing.B) {
	rg := requireTools(b, "rg")["rg"]
	benchSearcher(b, ripgrep.New(rg), false)
}

func BenchmarkRegexp2(b *testing.B) {
	benchSearcher(b, regexp2.New(), false)
}

// BenchmarkRipgrepFromSQLite and BenchmarkRegexp2FromSQLite read the
// values from SQLite (modernc) as search_text does, so they compare with
// the baseline end to end.
func BenchmarkRipgrepFromSQLite(b *testing.B) {
	rg := requireTools(b, "rg", "sqlite3")["rg"]
	benchSearcher(b, ripgrep.New(rg), true)
}

func BenchmarkRegexp2FromSQLite(b *testing.B) {
	requireTools(b, "sqlite3")
	benchSearcher(b, regexp2.New(), true)
}

func benchSearcher(b *testing.B, s ports.TextSearcher, fromSQLite bool) {
	for _, n := range sizes {
		for _, qc := range queries {
			b.Run(fmt.Sprintf("lines=%d/%s", n, qc.name), func(b *testing.B) {
				var db *sql.DB
				if fromSQLite {
					db = openDatabase(b, database(b, n))
				}
				resetPeakRSS(b)
				b.ResetTimer()
				for range b.N {
					src := lines(n)
					var rows *sql.Rows
					if fromSQLite {
						src, rows = values(b, db)
					}
					hits := 0
					err := s.Search(context.Background(), qc.q, src, func(domain.LineMatch) error { hits++; return nil })
					if err != nil {
						b.Fatal(err)
					}
					if rows != nil {
						_ = rows.Close()
					}
					if hits < n/200 || hits > n/50 {
						b.Fatalf("%d hits in %d lines; the queries match about 1%%", hits, n)
					}
				}
				b.StopTimer()
				b.ReportMetric(peakRSSMB(b), "peak-RSS-MB")
			})
		}
	}
}

// BenchmarkSQLiteScanOnly reads the values as the FromSQLite benchmarks do
// but searches nothing: the share of their time that is not the engine's.
func BenchmarkSQLiteScanOnly(b *testing.B) {
	requireTools(b, "sqlite3")
	for _, n := range sizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			db := openDatabase(b, database(b, n))
			b.ResetTimer()
			for range b.N {
				src, rows := values(b, db)
				count := 0
				for range src {
					count++
				}
				_ = rows.Close()
				if count != n {
					b.Fatalf("read %d values, want %d", count, n)
				}
			}
		})
	}
}

func openDatabase(b *testing.B, path string) *sql.DB {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return db
}

// values streams t.v as lines; the caller closes rows.
func values(b *testing.B, db *sql.DB) (iter.Seq[string], *sql.Rows) {
	b.Helper()
	rows, err := db.Query("SELECT v FROM t")
	if err != nil {
		b.Fatal(err)
	}
	return func(yield func(string) bool) {
		var v string
		for rows.Next() {
			if err := rows.Scan(&v); err != nil {
				b.Error(err)
				return
			}
			if !yield(domain.SearchLine(v)) {
				return
			}
		}
	}, rows
}

// BenchmarkBaselineRgPipeline times `sqlite3 -csv db 'select v from t' |
// rg --json --no-config --text <pattern> -` on the same values.
func BenchmarkBaselineRgPipeline(b *testing.B) {
	tools := requireTools(b, "rg", "sqlite3")
	for _, n := range sizes {
		for _, qc := range queries {
			b.Run(fmt.Sprintf("lines=%d/%s", n, qc.name), func(b *testing.B) {
				path := database(b, n)
				b.ResetTimer()
				for range b.N {
					pipeline(b, tools, path, qc.q)
				}
			})
		}
	}
}

func pipeline(b *testing.B, tools map[string]string, db string, q domain.SearchQuery) {
	b.Helper()
	export := exec.Command(tools["sqlite3"], "-csv", db, "SELECT v FROM t")
	args := []string{"--json", "--no-config", "--text"}
	if q.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	search := exec.Command(tools["rg"], append(args, "--regexp", q.Pattern, "-")...)
	pipe, err := export.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	search.Stdin = pipe
	search.Stdout = io.Discard
	if err := export.Start(); err != nil {
		b.Fatal(err)
	}
	if err := search.Run(); err != nil {
		b.Fatal(err)
	}
	if err := export.Wait(); err != nil {
		b.Fatal(err)
	}
}

// resetPeakRSS restarts the kernel's peak RSS count (VmHWM) for this process.
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset the peak RSS (%v); it covers the whole run", err)
	}
}

// peakRSSMB reads VmHWM from /proc/self/status, in MiB.
func peakRSSMB(b *testing.B) float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	b.Skip("no VmHWM in /proc/self/status")
	return 0
}
