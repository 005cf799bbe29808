package main

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
)

func TestParseConfigSubcommands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want func(*testing.T, settings.Config)
	}{
		{"flags after arguments", []string{"snapshots", "restore", "a.db", "--db", "/d.db", "--to", "/x.db", "--json"}, func(t *testing.T, c settings.Config) {
			assert.Equal(t, "snapshots", c.Command)
			assert.Equal(t, []string{"restore", "a.db"}, c.Args)
			assert.Equal(t, "/x.db", c.CLI.To)
			assert.True(t, c.CLI.JSON)
			assert.Equal(t, "/d.db", c.DBPath)
		}},
		{"-- ends the flags", []string{"call", "--db", "/d.db", "--", "read_query", "--json"}, func(t *testing.T, c settings.Config) {
			assert.Equal(t, []string{"read_query", "--json"}, c.Args)
			assert.False(t, c.CLI.JSON)
		}},
		{"server flags apply", []string{"log", "--db", "/d.db", "--read-only", "--max-rows", "700", "--failures", "--tool", "read_query"}, func(t *testing.T, c settings.Config) {
			assert.True(t, c.ReadOnly)
			assert.Equal(t, 700, c.Limits.MaxRows)
			assert.True(t, c.CLI.Failures)
			assert.Equal(t, "read_query", c.CLI.Tool)
			assert.Equal(t, 20, c.CLI.Limit)
		}},
		{"help needs no db", []string{"verify", "--help"}, func(t *testing.T, c settings.Config) {
			assert.True(t, c.ShowHelp)
			assert.Equal(t, "verify", c.Command)
		}},
		{"no subcommand serves", []string{"--db", "/d.db"}, func(t *testing.T, c settings.Config) {
			assert.Empty(t, c.Command)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseConfig(tc.args, envOf(map[string]string{"HOME": "/home/tester"}))
			require.NoError(t, err)
			tc.want(t, c)
		})
	}
}

func TestParseConfigSubcommandFlagsStayTheirs(t *testing.T) {
	t.Parallel()
	// A subcommand's flag is not a server flag, nor another subcommand's.
	for _, args := range [][]string{
		{"--db", "/d.db", "--json"},
		{"verify", "--db", "/d.db", "--failures"},
		{"log", "--db", "/d.db", "--over"},
	} {
		_, err := parseConfig(args, envOf(nil))
		var ue *settings.UsageError
		require.ErrorAs(t, err, &ue, "%v", args)
	}
}

func TestLogSQLQuotesEveryValue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	q, err := logSQL(settings.CLIOptions{Limit: 5, Failures: true, Tool: "x' OR 1=1 --", Since: "2h"}, now)
	require.NoError(t, err)
	assert.Contains(t, q, "ok = 0 AND tool = 'x'' OR 1=1 --' AND ts >= '2026-01-31T10:00:00Z'")
	assert.Contains(t, q, "LIMIT 5")
	for _, bad := range []settings.CLIOptions{{Limit: 0}, {Limit: 100_001}, {Limit: 1, Since: "soon"}, {Limit: 1, Since: "-1h"}} {
		_, err := logSQL(bad, now)
		var ue *settings.UsageError
		assert.ErrorAs(t, err, &ue, "%+v", bad)
	}
	since, err := parseSince("2026-01-30", now)
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 1, 30, 0, 0, 0, 0, time.UTC), since)
}

func TestTerminalHint(t *testing.T) {
	t.Parallel()
	h := terminalHint()
	assert.Contains(t, h, "waits for an MCP client")
	assert.Contains(t, h, "Ctrl+C")
	assert.Contains(t, h, "verify|resume|log|snapshots|call")
	assert.True(t, strings.HasSuffix(h, "\n"))
	assert.False(t, isTerminal(strings.NewReader("")), "a reader that is no file is no terminal")
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(null), "the null device is a character device but no terminal")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.False(t, isTerminal(r), "a client's pipe is no terminal")
}

func TestCommandUsageNamesEveryFlag(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		if c.flags != nil {
			c.flags(fs, &settings.CLIOptions{})
		}
		text := commandUsage(c.name)
		assert.Contains(t, text, "Usage: "+settings.ProgName+" "+c.name)
		assert.Contains(t, text, "--json")
		fs.VisitAll(func(f *flag.Flag) {
			assert.Contains(t, text, "--"+f.Name+" ", "%s --help must explain --%s", c.name, f.Name)
		})
	}
}

// TestUnexpectedArgumentNamesEverySubcommand: a stray argument is answered
// with the list of this binary's subcommands, in --help's order.
func TestUnexpectedArgumentNamesEverySubcommand(t *testing.T) {
	t.Parallel()
	_, err := parseConfig([]string{"--db", "/d.db", "memory.db"}, envOf(nil))
	var ue *settings.UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, `mcp-sqlite-memory: unexpected argument "memory.db": every setting is a flag, and the subcommands are `+
		`verify, resume, log, snapshots, call, restore, undo, pending, approve, deny, export, import, ui (see --help)`, err.Error())
}
