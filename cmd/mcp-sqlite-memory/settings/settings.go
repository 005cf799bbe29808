// Package settings is what mcp-sqlite-memory's command line and MCP_SQLITE_*
// variables decide: [Parse] reads them (a flag wins over its variable) into
// a [Config], with every value checked and named as the user gave it, and
// [Usage] is the --help text. The per-OS path rules (paths.go: drive
// letters, UNC shares, ~ expansion) are pure functions, so every OS's rules
// are tested on any host. Package main keeps the subcommands and the wiring.
package settings

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// ProgName prefixes every line the command prints about its own setup.
const ProgName = "mcp-sqlite-memory"

// Environment variables, one per flag (README "Settings"). A flag wins over its
// variable; an empty variable counts as unset.
const (
	EnvDB               = "MCP_SQLITE_DB"
	envQueryTimeout     = "MCP_SQLITE_QUERY_TIMEOUT"
	envDefaultLimit     = "MCP_SQLITE_DEFAULT_LIMIT"
	envMaxRows          = "MCP_SQLITE_MAX_ROWS"
	envMaxResultBytes   = "MCP_SQLITE_MAX_RESULT_BYTES"
	envMaxCellChars     = "MCP_SQLITE_MAX_CELL_CHARS"
	envMaxUpdateRows    = "MCP_SQLITE_MAX_UPDATE_ROWS"
	envSearchCandidates = "MCP_SQLITE_SEARCH_CANDIDATES"
	envSnapshots        = "MCP_SQLITE_SNAPSHOTS"
	EnvSnapshotDir      = "MCP_SQLITE_SNAPSHOT_DIR"
	envRG               = "MCP_SQLITE_RG"
	envVerbose          = "MCP_SQLITE_VERBOSE"
	envRepair           = "MCP_SQLITE_REPAIR_SERVER_OBJECTS"
	envReadOnly         = "MCP_SQLITE_READ_ONLY"
	envAuditDB          = "MCP_SQLITE_AUDIT_DB"
	envMaxRequestBytes  = "MCP_SQLITE_MAX_REQUEST_BYTES"
	envMaxCalls         = "MCP_SQLITE_MAX_CONCURRENT_CALLS"
	envMaxSQLiteHeap    = "MCP_SQLITE_MAX_SQLITE_HEAP_BYTES"
	envMaxSearches      = "MCP_SQLITE_MAX_CONCURRENT_SEARCHES"
	envMaxSearchValue   = "MCP_SQLITE_MAX_SEARCH_VALUE_BYTES"
	envStructured       = "MCP_SQLITE_STRUCTURED"
)

// Config is everything the command line and environment decide.
type Config struct {
	// DBPath is the database file, with ~ expanded and made absolute; ".."
	// is left for the system to resolve after any symbolic link.
	DBPath string
	// Limits are the caps every tool call runs under; already validated.
	Limits domain.Limits
	// SnapshotDir is the snapshot folder, "" for <db dir>/<db stem>.snapshots;
	// ~ is expanded but the path is not made absolute (docs/decisions.md#snapshots).
	SnapshotDir string
	// RGPath is the ripgrep binary as given; "" means look up rg on PATH.
	RGPath string
	// AuditDB is a separate SQLite file for the audit log in read-only mode,
	// with ~ expanded and made absolute (".." kept, as for DBPath); "" means
	// audit lines go to stderr.
	AuditDB string
	// ReadOnly opens the database read-only and offers only the read tools.
	ReadOnly bool
	// Verbose turns on debug logging.
	Verbose bool
	// RepairServerObjects lets startup rewrite look-alikes of the server's
	// triggers, index and view, and drop extra ones on its tables, instead
	// of refusing the file.
	RepairServerObjects bool
	// KeepSecrets is --redact-secrets=false: events and checkpoints are
	// stored as given, secret-shaped text included.
	KeepSecrets bool
	// ChainKey is the key read from --chain-key-file, nil without one.
	ChainKey *domain.ChainKey
	// Structured gives the tools that answer with a table an outputSchema
	// and a structuredContent copy of the table (the CSV stays the text).
	Structured bool
	// ShowVersion asks for the version line and nothing else.
	ShowVersion bool
	// ShowHelp asks for [Usage] (or the subcommand's help) and nothing else.
	ShowHelp bool
	// Command is the CLI subcommand (verify, resume, log, snapshots, call, restore, pending, approve, deny, ...);
	// "" serves MCP. Args are its positional arguments and CLI its options.
	Command string
	Args    []string
	CLI     CLIOptions
	// HTTP is the HTTP transport's configuration (http.go).
	HTTP HTTPConfig
	// Replicate is the Litestream replica URL, "" for none (replicate.go; the sidecar is started by package main).
	Replicate string
	// ReplicateSync is the time between syncs to the replica.
	ReplicateSync time.Duration
	// ReplicateFrom names the setting Replicate came from, for messages.
	ReplicateFrom string
	// Confirm are --confirm, --confirm-fallback and --confirm-wait
	// (confirm.go).
	Confirm domain.ConfirmSettings
}

// Notes is what parsing learns for startup messages rather than for
// running: how the database setting was named and which settings are
// without effect.
type Notes struct {
	// DBFlag names the database setting as the user gave it (--db, -db or
	// MCP_SQLITE_DB), for messages about the file.
	DBFlag string
	// Warnings are settings given but without effect (warnings.go), one
	// line each, naming the setting as the user gave it.
	Warnings []string
}

// UsageError is a malformed or invalid command line or environment. The
// caller prints Error() as the only line on stderr and exits with status 2.
type UsageError struct {
	msg string
	// err is the domain error behind a failed [domain.Limits.Validate], so
	// callers and tests can match it with errors.Is; nil otherwise.
	err error
}

// Error returns the complete line to print, program name included.
func (e *UsageError) Error() string { return ProgName + ": " + e.msg }

// Unwrap exposes the domain error behind a validation failure.
func (e *UsageError) Unwrap() error { return e.err }

// Usagef is a [UsageError] with a formatted message.
func Usagef(format string, args ...any) *UsageError {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// rawValue is a numeric setting kept as text until every source is known,
// so a malformed value is reported naming where it came from: the flag as
// the user spells it in the docs (--max-rows) or the environment variable.
type rawValue struct {
	flag   string
	text   string
	source string // "" while the default applies
}

// String returns the value as given.
func (v *rawValue) String() string {
	if v == nil {
		return ""
	}
	return v.text
}

// Set records a value given on the command line; parsing happens later.
func (v *rawValue) Set(s string) error {
	v.text, v.source = s, "--"+v.flag
	return nil
}

// settings holds what the flag set writes into before it becomes a Config.
type settings struct {
	cfg                             Config
	db, auditDB, snapshotDir        string
	queryTimeout                    rawValue
	defaultLimit, maxRows           rawValue
	maxResultBytes, maxCellChars    rawValue
	maxUpdateRows, searchCandidates rawValue
	snapshots, maxRequestBytes      rawValue
	maxCalls, maxSQLiteHeap         rawValue
	maxSearches, maxSearchValue     rawValue
	http                            httpSettings
	replicate                       replicateSettings
	confirm                         confirmSettings
	trust                           trustSettings
}

// ints pairs every integer setting with the Limits field it fills.
func (s *settings) ints(l *domain.Limits) []struct {
	v   *rawValue
	dst *int
} {
	return []struct {
		v   *rawValue
		dst *int
	}{
		{&s.defaultLimit, &l.DefaultLimit},
		{&s.maxRows, &l.MaxRows},
		{&s.maxResultBytes, &l.MaxResultBytes},
		{&s.maxCellChars, &l.MaxCellChars},
		{&s.maxUpdateRows, &l.MaxUpdateRows},
		{&s.searchCandidates, &l.SearchCandidates},
		{&s.snapshots, &l.Snapshots},
		{&s.maxRequestBytes, &l.MaxRequestBytes},
		{&s.maxCalls, &l.MaxConcurrentCalls},
		{&s.maxSQLiteHeap, &l.MaxSQLiteHeapBytes},
		{&s.maxSearches, &l.MaxConcurrentSearches},
		{&s.maxSearchValue, &l.MaxSearchValueBytes},
	}
}

// newFlagSet registers every flag with its environment variable as the
// default, so a flag given on the command line simply overwrites it.
func newFlagSet(s *settings, getenv func(string) string) *flag.FlagSet {
	fs := flag.NewFlagSet(ProgName, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the caller prints our one line, never flag's usage dump
	fs.Usage = func() {}

	fs.StringVar(&s.db, "db", getenv(EnvDB), "")
	fs.StringVar(&s.auditDB, "audit-db", getenv(envAuditDB), "")
	fs.StringVar(&s.snapshotDir, "snapshot-dir", getenv(EnvSnapshotDir), "")
	fs.StringVar(&s.cfg.RGPath, "rg", getenv(envRG), "")
	for _, n := range []struct {
		v         *rawValue
		flag, env string
	}{
		{&s.queryTimeout, "query-timeout", envQueryTimeout},
		{&s.defaultLimit, "default-limit", envDefaultLimit},
		{&s.maxRows, "max-rows", envMaxRows},
		{&s.maxResultBytes, "max-result-bytes", envMaxResultBytes},
		{&s.maxCellChars, "max-cell-chars", envMaxCellChars},
		{&s.maxUpdateRows, "max-update-rows", envMaxUpdateRows},
		{&s.searchCandidates, "search-candidates", envSearchCandidates},
		{&s.snapshots, "snapshots", envSnapshots},
		{&s.maxRequestBytes, "max-request-bytes", envMaxRequestBytes},
		{&s.maxCalls, "max-concurrent-calls", envMaxCalls},
		{&s.maxSQLiteHeap, "max-sqlite-heap-bytes", envMaxSQLiteHeap},
		{&s.maxSearches, "max-concurrent-searches", envMaxSearches},
		{&s.maxSearchValue, "max-search-value-bytes", envMaxSearchValue},
	} {
		n.v.flag = n.flag
		if t := getenv(n.env); t != "" {
			n.v.text, n.v.source = t, n.env
		}
		fs.Var(n.v, n.flag, "")
	}
	readOnly, _ := readOnlyEnv(getenv(envReadOnly))
	verbose := envBool(getenv(envVerbose))
	fs.BoolVar(&s.cfg.ReadOnly, "read-only", readOnly, "")
	fs.BoolVar(&s.cfg.Verbose, "verbose", verbose, "")
	fs.BoolVar(&s.cfg.Verbose, "v", verbose, "")
	fs.BoolVar(&s.cfg.RepairServerObjects, "repair-server-objects", envBool(getenv(envRepair)), "")
	addReplicateFlags(fs, &s.replicate, getenv)
	addConfirmFlags(fs, &s.confirm, getenv)
	addTrustFlags(fs, &s.trust, getenv)
	fs.BoolVar(&s.cfg.Structured, "structured", envBool(getenv(envStructured)), "")
	fs.BoolVar(&s.cfg.ShowVersion, "version", false, "")
	fs.BoolVar(&s.cfg.ShowHelp, "help", false, "")
	fs.BoolVar(&s.cfg.ShowHelp, "h", false, "")
	registerHTTPFlags(fs, &s.http, getenv)
	return fs
}

// readOnlyEnv reads MCP_SQLITE_READ_ONLY strictly: a setting meant to
// protect data must never be misread as "writable" because of a spelling
// the reference would take as false (on, y, enabled). ok is false for a
// value that is neither clearly true nor clearly false.
func readOnlyEnv(s string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, true
	case "", "0", "false", "no", "off":
		return false, true
	}
	return false, false
}

// envBool follows the reference: only 1, true and yes (any case) are true.
func envBool(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// Parse reads flags over environment variables (flags win) and returns the
// startup notes. args may start with one of cmds, whose own flags then
// apply too. Anything malformed or invalid is a [*UsageError] naming the
// setting. With --help or --version nothing else is checked, so neither
// needs --db.
func Parse(args []string, getenv func(string) string, cmds []Subcommand) (Config, Notes, error) {
	cfg, names, err := parseSettings(args, getenv, cmds)
	if err != nil || names == nil {
		return cfg, Notes{}, err
	}
	return cfg, Notes{DBFlag: names.of("db"), Warnings: ignoredSettings(cfg, names, getenv)}, nil
}

// parseSettings does the work of [Parse] and says how each setting was
// named; names is nil for --help and --version.
func parseSettings(args []string, getenv func(string) string, cmds []Subcommand) (_ Config, names *flagNames, _ error) {
	var s settings
	fs := newFlagSet(&s, getenv)
	cmd, args := subcommandOf(cmds, args)
	names = &flagNames{getenv: getenv}
	rest, err := parseCommandLine(fs, cmd, &s.cfg, args, names)
	if err != nil {
		return Config{}, nil, err
	}
	s.spellSources(names)
	if cmd == nil && len(rest) > 0 {
		return Config{}, nil, Usagef("unexpected argument %q: every setting is a flag, and the subcommands are %s (see --help)", rest[0], subcommandNames(cmds))
	}
	cfg := s.cfg
	if cfg.ShowHelp || cfg.ShowVersion {
		return Config{ShowHelp: cfg.ShowHelp, ShowVersion: cfg.ShowVersion, Command: cfg.Command, Args: cfg.Args, Limits: domain.DefaultLimits()}, nil, nil
	}

	if v := getenv(envReadOnly); v != "" {
		if _, ok := readOnlyEnv(v); !ok {
			return Config{}, nil, Usagef("invalid value %q for %s: want 1, true, yes or on (read-only), or 0, false, no or off", v, envReadOnly)
		}
	}
	cfg.Limits = domain.DefaultLimits()
	if s.queryTimeout.source != "" {
		d, err := parseSeconds(&s.queryTimeout)
		if err != nil {
			return Config{}, nil, err
		}
		cfg.Limits.QueryTimeout = d
	}
	for _, f := range s.ints(&cfg.Limits) {
		if f.v.source == "" {
			continue
		}
		n, err := parseInt(f.v)
		if err != nil {
			return Config{}, nil, err
		}
		*f.dst = n
	}
	// A default limit nobody set follows --max-rows down: --max-rows 5
	// alone means five rows at most, not a refusal of the built-in 100.
	// One that was set and exceeds it is still refused (checkRanges).
	if s.defaultLimit.source == "" {
		cfg.Limits.DefaultLimit = min(cfg.Limits.DefaultLimit, cfg.Limits.MaxRows)
	}

	if s.db == "" && (cmd == nil || !cmd.NoDB) {
		return Config{}, nil, Usagef("--db PATH is required (or set %s)", EnvDB)
	}
	if err := s.checkRanges(cfg.Limits, names); err != nil {
		return Config{}, nil, err
	}
	if err := cfg.Limits.Validate(); err != nil {
		return Config{}, nil, &UsageError{msg: err.Error(), err: err}
	}

	home := HomeDir(getenv)
	if s.db != "" {
		if cfg.DBPath, err = AbsKeepDots(ExpandHome(s.db, home)); err != nil {
			return Config{}, nil, fmt.Errorf("resolve %s: %v", names.of("db"), err)
		}
	}
	if s.auditDB != "" {
		if cfg.AuditDB, err = AbsKeepDots(ExpandHome(s.auditDB, home)); err != nil {
			return Config{}, nil, fmt.Errorf("resolve %s: %v", names.of("audit-db"), err)
		}
		// run compares it with the database by identity (CheckAuditPath).
	}
	cfg.SnapshotDir = ExpandHome(s.snapshotDir, home)
	if cfg.HTTP, err = parseHTTP(&s.http, getenv, names); err != nil {
		return Config{}, nil, err
	}
	if err := s.replicate.apply(&cfg, names); err != nil {
		return Config{}, nil, err
	}
	if err := s.confirm.apply(&cfg, names); err != nil {
		return Config{}, nil, err
	}
	if err := s.trust.apply(&cfg, names, getenv, home); err != nil {
		return Config{}, nil, err
	}
	return cfg, names, nil
}

func parseInt(v *rawValue) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v.text))
	if errors.Is(err, strconv.ErrRange) {
		return 0, Usagef("invalid value %q for %s: integer out of range", v.text, v.source)
	}
	if err != nil {
		return 0, Usagef("invalid value %q for %s: want an integer", v.text, v.source)
	}
	return n, nil
}

// maxSeconds is the longest timeout a time.Duration can hold.
const maxSeconds = float64(math.MaxInt64) / float64(time.Second)

// parseSeconds reads a float number of seconds. Zero and negative values
// pass through so that [domain.Limits.Validate] words the error.
func parseSeconds(v *rawValue) (time.Duration, error) {
	secs, err := strconv.ParseFloat(strings.TrimSpace(v.text), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, Usagef("invalid value %q for %s: want a number of seconds", v.text, v.source)
	}
	switch {
	case math.IsNaN(secs) || math.IsInf(secs, 0):
		return 0, Usagef("invalid value %q for %s: want a finite number of seconds", v.text, v.source)
	case secs >= maxSeconds:
		return 0, Usagef("invalid value %q for %s: at most %.0f seconds", v.text, v.source, math.Floor(maxSeconds))
	case secs <= -maxSeconds:
		return math.MinInt64, nil
	}
	d := time.Duration(math.Round(secs * float64(time.Second)))
	if d == 0 && secs > 0 {
		return 0, Usagef("invalid value %q for %s: shorter than a nanosecond", v.text, v.source)
	}
	return d, nil
}

// HomeDir is $HOME as getenv sees it, falling back to the OS's idea of it;
// "" when neither is known.
func HomeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return ""
}

// Usage is the --help text. It goes to stderr like everything else the
// command prints, because stdout carries the protocol.
func Usage() string {
	d := domain.DefaultLimits()
	return fmt.Sprintf(`Usage: %[1]s --db PATH [options]

An MCP server on stdio that makes one SQLite file a coding agent's tool and memory.
Each option can also be set with the environment variable shown under it; a flag
wins over its variable, and an empty variable counts as unset.

  --db PATH                 database file, created if missing (required)
                            %[2]s
  --read-only               open the database read-only and offer only the read
                            tools; nothing is ever written to it, and a missing
                            file is refused
                            %[3]s=1
  --audit-db PATH           in read-only mode, write the audit log to this separate
                            SQLite file instead of stderr
                            %[4]s
  --query-timeout SECONDS   deadline of one tool call's SQL (default %[5]s)
                            %[6]s
  --default-limit N         rows returned when a call passes no limit, lowered
                            to --max-rows when only that is set (default %[7]d)
                            %[8]s
  --max-rows N              largest limit a call may ask for (default %[9]d)
                            %[10]s
  --max-result-bytes N      cap on one result's CSV body (default %[11]d)
                            %[12]s
  --max-cell-chars N        cap on one cell, in characters (default %[13]d)
                            %[14]s
  --max-update-rows N       most rows one write_query UPDATE may change (default %[15]d)
                            %[16]s
  --search-candidates N     most rows one search_text scans (default %[17]d)
                            %[18]s
  --snapshots N             snapshots kept before destructive_query; 0 turns
                            them off (default %[19]d)
                            %[20]s
  --snapshot-dir PATH       snapshot folder (default <db dir>/<db stem>.snapshots)
                            %[21]s
  --rg PATH                 ripgrep binary for search_text (default: rg on PATH)
                            %[22]s
  --max-request-bytes N     largest inbound MCP message; a larger one is refused
                            unread, as a tool error (default %[24]d)
                            %[25]s
  --max-concurrent-calls N  tool calls that run at once; the others wait, their
                            deadline counting from arrival (default %[26]d)
                            %[27]s
  --max-concurrent-searches N  search_text calls that run at once (default %[30]d)
                            %[31]s
  --max-search-value-bytes N  bytes of each value search_text searches; a longer
                            value is searched in its head only (default %[32]d)
                            %[33]s
  --max-sqlite-heap-bytes N cap on SQLite's memory, shared by every call in flight;
                            a statement needing more fails (default %[28]d)
                            %[29]s
  --repair-server-objects   at startup, rewrite server triggers, index and view
                            that are not the server's own and drop extra ones on
                            its tables, instead of refusing the file (tables
                            and rows are never touched)
                            %[34]s=1
  --structured              tools that answer with a table (read_query, write_query,
                            destructive_query, list_tables, search_text) also return
                            it as JSON: an outputSchema and structuredContent with
                            columns and typed rows; the CSV text stays (default off)
                            `+envStructured+`=1
  -v, --verbose             debug logging on stderr
                            %[23]s=1
  --version                 print the version and exit
  -h, --help                print this help and exit

Flags may be spelled -flag or --flag, with the value as --flag=VALUE or --flag VALUE.

Commands for people, on the same file while a server runs (each with --help):
  %[1]s verify|resume|log|snapshots|call|undo --db PATH ...
  %[1]s pending|approve|deny|export|ui --db PATH ...
  %[1]s import --to NEW.db, restore --from URL --to PATH
`+httpUsage(), ProgName, EnvDB, envReadOnly, envAuditDB,
		domain.FormatSeconds(d.QueryTimeout), envQueryTimeout,
		d.DefaultLimit, envDefaultLimit, d.MaxRows, envMaxRows,
		d.MaxResultBytes, envMaxResultBytes, d.MaxCellChars, envMaxCellChars,
		d.MaxUpdateRows, envMaxUpdateRows, d.SearchCandidates, envSearchCandidates,
		d.Snapshots, envSnapshots, EnvSnapshotDir, envRG, envVerbose,
		d.MaxRequestBytes, envMaxRequestBytes,
		d.MaxConcurrentCalls, envMaxCalls, d.MaxSQLiteHeapBytes, envMaxSQLiteHeap,
		d.MaxConcurrentSearches, envMaxSearches, d.MaxSearchValueBytes, envMaxSearchValue,
		envRepair) + trustUsage() + replicateUsage() + confirmUsage()
}
