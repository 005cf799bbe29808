package ripgrep_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

func TestSearcherContract(t *testing.T) {
	t.Parallel()
	rg := contract.RequireRg(t)
	contract.TestTextSearcher(t, func(*testing.T) ports.TextSearcher { return ripgrep.New(rg) })
}

// TestSearcherKillsRgAtTheDeadline is not parallel, so that the only rg
// processes that can be our children are this test's.
func TestSearcherKillsRgAtTheDeadline(t *testing.T) {
	rg := contract.RequireRg(t)
	goroutines := runtime.NumGoroutine()
	for _, stop := range []string{"deadline", "found error"} {
		// The found error ends its search at the first match; its deadline
		// only has to outlast rg's start on a loaded machine (300 ms did not,
		// once in CI, and the search ended by the deadline instead).
		timeout := 300 * time.Millisecond
		if stop == "found error" {
			timeout = 30 * time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		endless := func(yield func(string) bool) {
			for i := 0; yield(fmt.Sprint("line ", i)); i++ {
			}
		}
		err := ripgrep.New(rg).Search(ctx, domain.SearchQuery{Pattern: "line"}, endless, func(domain.LineMatch) error {
			if stop == "found error" {
				return context.Canceled
			}
			return nil
		})
		cancel()
		if stop == "deadline" {
			require.ErrorIs(t, err, domain.ErrTimeout)
		} else {
			require.ErrorIs(t, err, context.Canceled)
		}
		assert.Empty(t, childProcesses(t), "rg was killed and reaped (%s)", stop)
	}
	// Not assert.Eventually: it polls from a goroutine of its own.
	for deadline := time.Now().Add(slack.Of(2 * time.Second)); runtime.NumGoroutine() > goroutines && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "no goroutine outlives a search")
}

// childProcesses lists the commands of this process's live children.
func childProcesses(t *testing.T) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		require.Empty(t, os.Getenv("CI"), "CI runs on Linux: /proc must be there")
		t.Skip("no /proc to list child processes")
	}
	var children []string
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces, so split after ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) {
			children = append(children, s[strings.IndexByte(s, '(')+1:strings.LastIndexByte(s, ')')])
		}
	}
	return children
}

func TestSearcherStartFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := ripgrep.New(filepath.Join(dir, "no-such-rg")).Search(context.Background(), domain.SearchQuery{Pattern: "a"},
		slices.Values([]string{"a"}), func(domain.LineMatch) error { return nil })
	require.ErrorIs(t, err, domain.ErrUnavailable)
	assert.NotContains(t, err.Error(), dir, "the message holds no absolute path")
}

// TestSearcherReportsRgFailures runs small shell scripts in rg's place.
func TestSearcherReportsRgFailures(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		require.Empty(t, os.Getenv("CI"), "CI must provide sh")
		t.Skip("no sh to run fake rg scripts")
	}
	tests := []struct {
		name   string
		script string
		want   error
	}{
		{name: "an error exit that is no regex error", script: "echo 'rg: something broke' >&2; exit 3", want: domain.ErrSearch},
		{name: "exit 2 with a regex error", script: "cat >/dev/null; echo 'regex parse error: unclosed group' >&2; exit 2", want: domain.ErrInvalidArgument},
		{name: "killed by a signal", script: "kill -9 $$", want: domain.ErrSearch},
		{name: "malformed output", script: `cat >/dev/null; printf '%s\n' '{"type":"match","data":{"lines":{"text":"a\n"}}}'`, want: domain.ErrSearch},
		{name: "offsets outside the line", script: `cat >/dev/null; printf '%s\n' '{"type":"match","data":{"lines":{"text":"a\n"},"line_number":1,"submatches":[{"start":0,"end":9}]}}'`, want: domain.ErrSearch},
		{name: "success without reading the input", script: "exit 0", want: domain.ErrSearch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := filepath.Join(t.TempDir(), "rg")
			require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755))
			lines := func(yield func(string) bool) {
				for i := 0; i < 200_000 && yield(strings.Repeat("x", 100)); i++ {
				}
			}
			err := ripgrep.New(fake).Search(context.Background(), domain.SearchQuery{Pattern: "a"}, lines,
				func(domain.LineMatch) error { return nil })
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestSearcherReadsFakeOutput(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		require.Empty(t, os.Getenv("CI"), "CI must provide sh")
		t.Skip("no sh to run fake rg scripts")
	}
	// ripgrep writes bytes as base64 when a line is not UTF-8, escapes
	// control characters (and may escape more), and some versions omit the
	// offsets of a match found through a text anchor.
	script := `cat >/dev/null
printf '%s\n' '{"type":"begin","data":{"path":{"text":"<stdin>"}}}'
printf '%s\n' '{"type":"match","data":{"lines":{"bytes":"YWJjCg=="},"line_number":1,"submatches":[{"match":{"text":"b"},"start":1,"end":2}]}}'
printf '%s\n' '{"type":"match","data":{"lines":{"text":"xyz\n"},"line_number":3,"submatches":[]}}'
printf '%s\n' '{"type":"match","data":{"path":{"text":"<stdin>"},"lines":{"text":"q\"\\\/\u0001\t\u00e9\ud83d\ude00\n"},"line_number":4,"absolute_offset":0,"submatches":[{"match":{"text":"\""},"start":1,"end":2},{"match":{"text":"x"},"start":9,"end":9}]}}'
printf '%s\n' '{"data":{"elapsed_total":{"secs":0}},"type":"summary"}'`
	fake := filepath.Join(t.TempDir(), "rg")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	got, err := contract.Collect(context.Background(), ripgrep.New(fake), domain.SearchQuery{Pattern: "b"},
		slices.Values([]string{"abc", "def", "xyz", "q\"\\/\x01\té😀"}))
	require.NoError(t, err)
	assert.Equal(t, []domain.LineMatch{
		{Index: 0, Text: "abc", Start: 1, End: 2},
		{Index: 2, Text: "xyz", Start: 0, End: 0},
		{Index: 3, Text: "q\"\\/\x01\té😀", Start: 1, End: 2},
	}, got)
}
