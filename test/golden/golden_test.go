package golden_test

import (
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // fixture builds the file before the server opens it

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the tools answer now")

// start is the fixed clock every case runs on.
var start = time.Date(2026, 9, 13, 10, 11, 0, 0, time.UTC)

// fixture starts a server on a fresh copy of testdata/fixture.sql, with a
// clock that stands still at start unless a case moves it.
func fixture(t *testing.T, limits domain.Limits) (*harness.Env, *fake.Clock) {
	t.Helper()
	ddl, err := os.ReadFile(filepath.Join("testdata", "fixture.sql"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "golden.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.Exec(string(ddl))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	clock := fake.NewClock(start)
	return harness.New(t, harness.Config{DBPath: path, Clock: clock, Limits: limits}), clock
}

// scrub is the one rewrite of an answer before it is compared: the
// temporary folder the case runs in (which holds the database and its
// snapshots) becomes $DIR. Everything else is compared as the agent reads
// it.
func scrub(env *harness.Env, s string) string {
	return strings.ReplaceAll(s, env.Dir, "$DIR")
}

// check compares got with testdata/name.golden, or with -update writes it.
func check(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; run: go test ./test/golden -update")
	if string(want) != got {
		t.Errorf("%s differs (-want +got); if the change is intended, run go test ./test/golden -update and review the diff:\n%s",
			path, diff(string(want), got))
	}
}

// contextLines is how many unchanged lines diff shows around a change.
const contextLines = 2

// diff is a line diff of want and got: lines only in want start with "-",
// only in got with "+", unchanged ones with " " (only the few around a
// change; "..." stands for the rest). A line without a final newline is
// marked, so a lost one is visible.
func diff(want, got string) string {
	a, b := lines(want), lines(got)
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, " "+a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, "-"+a[i])
			i++
		default:
			ops = append(ops, "+"+b[j])
			j++
		}
	}
	var out strings.Builder
	skipped := false
	for k, op := range ops {
		near := false
		for d := max(0, k-contextLines); d <= min(len(ops)-1, k+contextLines); d++ {
			near = near || ops[d][0] != ' '
		}
		if !near {
			if !skipped {
				out.WriteString("...\n")
			}
			skipped = true
			continue
		}
		skipped = false
		out.WriteString(op + "\n")
	}
	return out.String()
}

// lines splits s after each newline; a last line without one is marked.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	for k, p := range parts {
		if strings.HasSuffix(p, "\n") {
			parts[k] = strings.TrimSuffix(p, "\n")
		} else {
			parts[k] = p + "⏎(no newline at end)"
		}
	}
	return parts
}

func TestDiffShowsWhatChanged(t *testing.T) {
	got := diff("a\nb\nc\n", "a\nB\nc")
	require.Equal(t, " a\n-b\n-c\n+B\n+c⏎(no newline at end)\n", got)
	got = diff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n")
	require.Equal(t, "...\n 3\n 4\n-5\n+five\n 6\n 7\n...\n", got)
}
