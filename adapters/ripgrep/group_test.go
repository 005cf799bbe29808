//go:build unix

package ripgrep_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// memAlive lists the live processes whose command line holds marker.
func memAlive(t *testing.T, marker string) []string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(paths) == 0 {
		require.Empty(t, os.Getenv("CI"), "CI runs on Linux: /proc must be there")
		t.Skip("no /proc to list processes")
	}
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// TestSearcherKillsTheWholeProcessGroup: a --rg program that hangs, and the
// children it forked, are all gone once the search answers at its
// deadline; a program that exits normally leaves no child behind either.
func TestSearcherKillsTheWholeProcessGroup(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		require.Empty(t, os.Getenv("CI"), "CI must provide sh")
		t.Skip("no sh")
	}
	for _, tc := range []struct {
		name, script string
		wantErr      error
	}{
		{"hangs with a child", "sleep %[1]s &\nsleep %[1]s\n", domain.ErrTimeout},
		{"hangs with a grandchild", "sh -c 'sleep %[1]s & wait' &\nwait\n", domain.ErrTimeout},
		{"exits leaving a child", "sleep %[1]s >/dev/null 2>&1 </dev/null &\ncat >/dev/null\nexit 1\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			marker := fmt.Sprintf("30.%09d", time.Now().UnixNano()%1e9) // a unique sleep length
			fake := filepath.Join(t.TempDir(), "rg")
			require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"+fmt.Sprintf(tc.script, marker)), 0o755))
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			began := time.Now()
			err := ripgrep.New(fake).Search(ctx, domain.SearchQuery{Pattern: "a"}, slices.Values([]string{"a"}), func(domain.LineMatch) error { return nil })
			assert.Less(t, time.Since(began), slack.Of(3*time.Second), "answered soon after the deadline")
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			var alive []string
			for deadline := time.Now().Add(slack.Of(2 * time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if alive = memAlive(t, marker); len(alive) == 0 {
					break
				}
			}
			assert.Empty(t, alive, "the program and every child it forked are gone")
		})
	}
}
