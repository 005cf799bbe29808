package settings

// These tests live in package main, not main_test: parseConfig is the
// unexported seam between the command line and run, and an external test
// package could only reach it through an extra export file.

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// envOf returns a getenv that sees only vars; HOME is pinned so that ~
// expansion never depends on the machine running the tests.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		if k == "HOME" {
			return "/home/tester"
		}
		return ""
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	require.NoError(t, err)
	return abs
}

func withLimits(f func(*domain.Limits)) domain.Limits {
	l := domain.DefaultLimits()
	f(&l)
	return l
}

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	got, err := parseConfig([]string{"--db", "/data/memory.db"}, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, Config{DBPath: "/data/memory.db", Limits: domain.DefaultLimits()}, got)
}

func TestParseConfigFromEnvironment(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		EnvDB:               "/data/env.db",
		envQueryTimeout:     "2.5",
		envDefaultLimit:     "20",
		envMaxRows:          "200",
		envMaxResultBytes:   "4096",
		envMaxCellChars:     "80",
		envMaxUpdateRows:    "7",
		envSearchCandidates: "900",
		envSnapshots:        "0",
		EnvSnapshotDir:      "/backups",
		envRG:               "/opt/rg",
		envVerbose:          "yes",
		envReadOnly:         "TRUE",
		envAuditDB:          "/data/audit.db",
		envMaxRequestBytes:  "65536",
		envMaxCalls:         "3",
		envMaxSQLiteHeap:    "33554432",
		envMaxSearches:      "2",
		envMaxSearchValue:   "4096",
	})
	got, err := parseConfig(nil, env)
	require.NoError(t, err)
	assert.Equal(t, Config{
		DBPath: "/data/env.db",
		Limits: domain.Limits{
			QueryTimeout: 2500 * time.Millisecond, DefaultLimit: 20, MaxRows: 200, MaxResultBytes: 4096,
			MaxCellChars: 80, MaxUpdateRows: 7, SearchCandidates: 900, Snapshots: 0, MaxRequestBytes: 65536,
			MaxConcurrentCalls: 3, MaxSQLiteHeapBytes: 32 << 20, MaxConcurrentSearches: 2, MaxSearchValueBytes: 4096,
		},
		SnapshotDir: "/backups",
		RGPath:      "/opt/rg",
		AuditDB:     "/data/audit.db",
		ReadOnly:    true,
		Verbose:     true,
	}, got)
}

func TestParseConfigFlagsOverrideEnvironment(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		EnvDB: "/data/env.db", envQueryTimeout: "2.5", envDefaultLimit: "20", envMaxRows: "200",
		envMaxResultBytes: "4096", envMaxCellChars: "80", envMaxUpdateRows: "7", envSearchCandidates: "900",
		envSnapshots: "0", EnvSnapshotDir: "/backups", envRG: "/opt/rg", envVerbose: "1", envReadOnly: "1",
		envAuditDB: "/data/audit.db", envMaxRequestBytes: "65536", envMaxCalls: "3", envMaxSQLiteHeap: "33554432", envMaxSearches: "2", envMaxSearchValue: "4096",
	})
	args := []string{
		"--db", "/data/flag.db", "--query-timeout", "0.25", "--default-limit", "3", "--max-rows", "30",
		"--max-result-bytes", "300", "--max-cell-chars", "10", "--max-update-rows", "1",
		"--search-candidates", "40", "--snapshots", "9", "--snapshot-dir", "/snaps", "--rg", "/bin/rg",
		"--verbose=false", "--read-only=false", "--audit-db", "/data/other-audit.db",
		"--max-request-bytes", "4096", "--max-concurrent-calls", "16", "--max-sqlite-heap-bytes", "100000000",
		"--max-concurrent-searches", "4", "--max-search-value-bytes", "100",
	}
	got, err := parseConfig(args, env)
	require.NoError(t, err)
	assert.Equal(t, Config{
		DBPath: "/data/flag.db",
		Limits: domain.Limits{
			QueryTimeout: 250 * time.Millisecond, DefaultLimit: 3, MaxRows: 30, MaxResultBytes: 300,
			MaxCellChars: 10, MaxUpdateRows: 1, SearchCandidates: 40, Snapshots: 9, MaxRequestBytes: 4096,
			MaxConcurrentCalls: 16, MaxSQLiteHeapBytes: 100000000, MaxConcurrentSearches: 4, MaxSearchValueBytes: 100,
		},
		SnapshotDir: "/snaps",
		RGPath:      "/bin/rg",
		AuditDB:     "/data/other-audit.db",
	}, got)
}

func TestParseConfigFlagSpellings(t *testing.T) {
	t.Parallel()
	want := Config{
		DBPath:   "/data/x.db",
		Limits:   withLimits(func(l *domain.Limits) { l.MaxRows = 50; l.DefaultLimit = 5 }),
		ReadOnly: true,
		Verbose:  true,
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"double dash, separate values", []string{"--db", "/data/x.db", "--max-rows", "50", "--default-limit", "5", "--read-only", "--verbose"}},
		{"double dash, equals", []string{"--db=/data/x.db", "--max-rows=50", "--default-limit=5", "--read-only=true", "--verbose=1"}},
		{"single dash", []string{"-db", "/data/x.db", "-max-rows=50", "-default-limit", "5", "-read-only", "-v"}},
		{"short verbose with double dash", []string{"--db", "/data/x.db", "--max-rows", "50", "--default-limit", "5", "--read-only", "--v"}},
		{"end of flags marker", []string{"--db", "/data/x.db", "--max-rows", "50", "--default-limit", "5", "--read-only", "-v", "--"}},
		{"repeated flag, last wins", []string{"--db", "/data/y.db", "--db", "/data/x.db", "--max-rows", "9", "--max-rows", "50", "--default-limit", "5", "--read-only", "-v"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseConfig(tc.args, envOf(nil))
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestParseConfigBooleanVariables(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{"1", true}, {"true", true}, {"TRUE", true}, {"True", true}, {"yes", true}, {"YES", true},
		{" yes ", true}, {"0", false}, {"false", false}, {"no", false}, {"on", false}, {"2", false}, {"", false},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			// MCP_SQLITE_VERBOSE follows the reference (only 1/true/yes are
			// true); MCP_SQLITE_READ_ONLY is stricter, see below.
			got, err := parseConfig([]string{"--db", "/d.db"}, envOf(map[string]string{envVerbose: tc.value}))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Verbose, "verbose")
		})
	}
}

func TestParseConfigQueryTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  time.Duration
	}{
		{"10", 10 * time.Second},
		{"2.5", 2500 * time.Millisecond},
		{"0.1", 100 * time.Millisecond},
		{"1e-3", time.Millisecond},
		{" 3 ", 3 * time.Second},
		{"3600", time.Hour},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			got, err := parseConfig([]string{"--db", "/d.db", "--query-timeout", tc.value}, envOf(nil))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Limits.QueryTimeout)
		})
	}
}

func TestParseConfigHelpAndVersion(t *testing.T) {
	t.Parallel()
	// A malformed variable must not stand in the way of --help or --version.
	env := envOf(map[string]string{envMaxRows: "abc"})
	for _, tc := range []struct {
		name string
		args []string
		want Config
	}{
		{"version", []string{"--version"}, Config{ShowVersion: true, Limits: domain.DefaultLimits()}},
		{"single dash version", []string{"-version"}, Config{ShowVersion: true, Limits: domain.DefaultLimits()}},
		{"long help", []string{"--help"}, Config{ShowHelp: true, Limits: domain.DefaultLimits()}},
		{"short help", []string{"-h"}, Config{ShowHelp: true, Limits: domain.DefaultLimits()}},
		{"help after other flags", []string{"--db", "/d.db", "--max-rows", "0", "--help"}, Config{ShowHelp: true, Limits: domain.DefaultLimits()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseConfig(tc.args, env)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseConfigUsageErrors(t *testing.T) {
	t.Parallel()
	const p = "mcp-sqlite-memory: "
	const missingDB = p + "--db PATH is required (or set MCP_SQLITE_DB)"
	flags := func(more ...string) []string { return append([]string{"--db", "/d.db"}, more...) }
	vars := func(k, v string) map[string]string { return map[string]string{EnvDB: "/d.db", k: v} }
	invalid := domain.ErrInvalidArgument
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string // the exact line printed on stderr: it is the contract (docs/decisions.md#details)
		kind error  // the domain sentinel behind a validation failure, nil otherwise
	}{
		{"missing db", nil, nil, missingDB, nil},
		{"empty db flag", []string{"--db", ""}, nil, missingDB, nil},
		{"empty db variable", nil, map[string]string{EnvDB: ""}, missingDB, nil},
		{"malformed integer flag", flags("--max-rows", "abc"), nil,
			p + `invalid value "abc" for --max-rows: want an integer`, nil},
		{"malformed integer flag spelled with one dash", flags("-snapshots=1.5"), nil,
			p + `invalid value "1.5" for -snapshots: want an integer`, nil},
		{"empty integer flag", flags("--max-cell-chars="), nil,
			p + `invalid value "" for --max-cell-chars: want an integer`, nil},
		{"malformed integer variable", nil, vars(envMaxRows, "abc"),
			p + `invalid value "abc" for MCP_SQLITE_MAX_ROWS: want an integer`, nil},
		{"integer variable out of range", nil, vars(envSearchCandidates, "99999999999999999999"),
			p + `invalid value "99999999999999999999" for MCP_SQLITE_SEARCH_CANDIDATES: integer out of range`, nil},
		{"malformed integer variable reported even without db", nil, map[string]string{envMaxUpdateRows: "ten"},
			p + `invalid value "ten" for MCP_SQLITE_MAX_UPDATE_ROWS: want an integer`, nil},
		{"malformed float flag", flags("--query-timeout", "soon"), nil,
			p + `invalid value "soon" for --query-timeout: want a number of seconds`, nil},
		{"malformed float variable", nil, vars(envQueryTimeout, "10s"),
			p + `invalid value "10s" for MCP_SQLITE_QUERY_TIMEOUT: want a number of seconds`, nil},
		{"NaN timeout", flags("--query-timeout", "NaN"), nil,
			p + `invalid value "NaN" for --query-timeout: want a finite number of seconds`, nil},
		{"infinite timeout variable", nil, vars(envQueryTimeout, "inf"),
			p + `invalid value "inf" for MCP_SQLITE_QUERY_TIMEOUT: want a finite number of seconds`, nil},
		{"timeout beyond a duration", flags("--query-timeout", "1e300"), nil,
			p + `invalid value "1e300" for --query-timeout: at most 9223372036 seconds`, nil},
		{"timeout below a nanosecond", flags("--query-timeout", "1e-12"), nil,
			p + `invalid value "1e-12" for --query-timeout: shorter than a nanosecond`, nil},
		{"zero timeout", flags("--query-timeout", "0"), nil, p + `invalid value "0" for --query-timeout: want a positive number of seconds`, invalid},
		{"negative timeout variable", nil, vars(envQueryTimeout, "-1.5"), p + `invalid value "-1.5" for MCP_SQLITE_QUERY_TIMEOUT: want a positive number of seconds`, invalid},
		{"zero max rows", flags("--max-rows", "0"), nil, p + `invalid value "0" for --max-rows: want a positive integer`, invalid},
		{"negative default limit variable", nil, vars(envDefaultLimit, "-5"), p + `invalid value "-5" for MCP_SQLITE_DEFAULT_LIMIT: want a positive integer`, invalid},
		{"zero max result bytes", flags("--max-result-bytes", "0"), nil, p + `invalid value "0" for --max-result-bytes: want a positive integer`, invalid},
		{"zero max cell chars", flags("--max-cell-chars", "0"), nil, p + `invalid value "0" for --max-cell-chars: want a positive integer`, invalid},
		{"zero max update rows", flags("--max-update-rows", "0"), nil, p + `invalid value "0" for --max-update-rows: want a positive integer`, invalid},
		{"zero search candidates", flags("--search-candidates", "0"), nil, p + `invalid value "0" for --search-candidates: want a positive integer`, invalid},
		{"negative snapshots", flags("--snapshots", "-1"), nil, p + `invalid value "-1" for --snapshots: want 0 (no snapshots) or more`, invalid},
		{"default limit above max rows", flags("--max-rows", "50", "--default-limit", "100"), nil, p + "--default-limit (100) cannot exceed --max-rows (50): raise --max-rows or lower --default-limit", invalid},
		{"default limit above max rows from variables", nil, vars(envDefaultLimit, "2000"),
			p + "MCP_SQLITE_DEFAULT_LIMIT (2000) cannot exceed --max-rows (1000): raise --max-rows or lower MCP_SQLITE_DEFAULT_LIMIT", invalid},
		{"unknown flag", flags("--max-row", "5"), nil, p + "unknown flag --max-row (see --help)", nil},
		{"flag without its value", []string{"--db"}, nil, p + "--db needs a value (see --help)", nil},
		{"malformed boolean flag", flags("--read-only=maybe"), nil,
			p + `invalid value "maybe" for --read-only: want true or false (see --help)`, nil},
		{"positional argument", flags("memory.db"), nil,
			p + `unexpected argument "memory.db": every setting is a flag, and the subcommands are verify, log, restore (see --help)`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseConfig(tc.args, envOf(tc.env))
			var ue *UsageError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, tc.want, err.Error())
			assert.NotContains(t, err.Error(), "\n", "one line only")
			if tc.kind != nil {
				assert.ErrorIs(t, err, tc.kind)
			} else {
				assert.NotErrorIs(t, err, domain.ErrInvalidArgument)
			}
		})
	}
}

func TestParseConfigIgnoresVariableOverriddenByFlag(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{envMaxRows: "abc", envQueryTimeout: "never"})
	got, err := parseConfig([]string{"--db", "/d.db", "--max-rows", "500", "--query-timeout", "4"}, env)
	require.NoError(t, err)
	assert.Equal(t, Config{
		DBPath: "/d.db",
		Limits: withLimits(func(l *domain.Limits) { l.MaxRows = 500; l.QueryTimeout = 4 * time.Second }),
	}, got)
}

func TestUsageTextDocumentsEveryFlag(t *testing.T) {
	t.Parallel()
	text := Usage()
	var s settings
	newFlagSet(&s, envOf(nil)).VisitAll(func(f *flag.Flag) {
		spelled := "--" + f.Name
		if len(f.Name) == 1 {
			spelled = "-" + f.Name + ","
		}
		assert.Contains(t, text, spelled)
	})
	for _, env := range []string{
		EnvDB, envQueryTimeout, envDefaultLimit, envMaxRows, envMaxResultBytes, envMaxCellChars,
		envMaxUpdateRows, envSearchCandidates, envSnapshots, EnvSnapshotDir, envRG, envVerbose,
		envReadOnly, envAuditDB,
	} {
		assert.Contains(t, text, env)
	}
	assert.Contains(t, text, "(default 32768)", "defaults come from domain.DefaultLimits")
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		assert.LessOrEqual(t, len(line), 90, "line %d is too wide: %q", i+1, line)
	}
}

func TestReadOnlyEnvironmentIsReadStrictly(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			switch k {
			case EnvDB:
				return "/tmp/x.db"
			case envReadOnly:
				return v
			}
			return ""
		}
	}
	for _, v := range []string{"1", "TRUE", "yes", "on"} {
		cfg, err := parseConfig(nil, env(v))
		require.NoError(t, err, v)
		assert.True(t, cfg.ReadOnly, v)
	}
	for _, v := range []string{"0", "false", "No", "off"} {
		cfg, err := parseConfig(nil, env(v))
		require.NoError(t, err, v)
		assert.False(t, cfg.ReadOnly, v)
	}
	for _, v := range []string{"y", "enabled", "2"} {
		_, err := parseConfig(nil, env(v))
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, v)
	}
}

// --max-rows below the built-in default limit lowers the default with it;
// a default limit that was set still has to fit (the refusal above).
func TestParseConfigMaxRowsAloneClampsTheDefaultLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"flag", []string{"--db", "/d.db", "--max-rows", "5"}, nil},
		{"variable", []string{"--db", "/d.db"}, map[string]string{envMaxRows: "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConfig(tc.args, envOf(tc.env))
			require.NoError(t, err)
			assert.Equal(t, 5, got.Limits.MaxRows)
			assert.Equal(t, 5, got.Limits.DefaultLimit)
		})
	}
}
