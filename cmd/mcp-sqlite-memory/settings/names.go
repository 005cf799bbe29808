package settings

import (
	"flag"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// flagEnvs maps every setting's flag to its environment variable.
var flagEnvs = map[string]string{
	"db": EnvDB, "audit-db": envAuditDB, "snapshot-dir": EnvSnapshotDir, "rg": envRG,
	"query-timeout": envQueryTimeout, "default-limit": envDefaultLimit, "max-rows": envMaxRows,
	"max-result-bytes": envMaxResultBytes, "max-cell-chars": envMaxCellChars,
	"max-update-rows": envMaxUpdateRows, "search-candidates": envSearchCandidates,
	"snapshots": envSnapshots, "max-request-bytes": envMaxRequestBytes,
	"max-concurrent-calls": envMaxCalls, "max-sqlite-heap-bytes": envMaxSQLiteHeap,
	"max-concurrent-searches": envMaxSearches, "max-search-value-bytes": envMaxSearchValue,
	"read-only": envReadOnly, "verbose": envVerbose, "repair-server-objects": envRepair, "structured": envStructured,
	"http": envHTTP, "auth-token-file": envAuthTokenFile, "allowed-hosts": envAllowedHosts,
	"max-sessions": envMaxSessions, "session-idle-timeout": envSessionIdle,
	"oauth-issuer": envOAuthIssuer, "oauth-audience": envOAuthAudience,
	"replicate": EnvReplicate, "replicate-sync-interval": envReplicateSync,
	"confirm": envConfirm, "confirm-fallback": envConfirmFallback, "confirm-wait": envConfirmWait,
	"redact-secrets": envRedactSecrets, "chain-key-file": envChainKeyFile,
}

// flagNames says how the user named each setting, so that every message
// about it uses the same spelling: the flag as typed (-max-rows or
// --max-rows), else its environment variable when that is set, else the
// flag as the docs spell it.
type flagNames struct {
	typed  map[string]string
	getenv func(string) string
}

// of names the setting behind flag name.
func (n *flagNames) of(name string) string {
	if t, ok := n.typed[name]; ok {
		return t
	}
	if env := flagEnvs[name]; env != "" && n.getenv != nil && n.getenv(env) != "" {
		return env
	}
	return "--" + name
}

// given reports whether the setting was given at all, on the command line
// or in its environment variable.
func (n *flagNames) given(name string) bool {
	if _, ok := n.typed[name]; ok {
		return true
	}
	env := flagEnvs[name]
	return env != "" && n.getenv != nil && n.getenv(env) != ""
}

// scanFlags walks args the way flag.FlagSet.Parse will, recording how each
// flag is spelled, and refuses what Parse would refuse with a message that
// spells the flag as typed (flag's own messages always write -name). When
// interleaved is set (subcommands), positional arguments may sit between
// flags; otherwise the first one ends the flags.
func scanFlags(fs *flag.FlagSet, args []string, interleaved bool, see string) (map[string]string, error) {
	typed := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if !interleaved {
				break
			}
			continue
		}
		dashes := "-"
		body := a[1:]
		if body[0] == '-' {
			dashes, body = "--", body[1:]
		}
		name, value, hasValue := strings.Cut(body, "=")
		spelled := dashes + name
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, Usagef("bad flag syntax %q (%s)", a, see)
		}
		f := fs.Lookup(name)
		if f == nil {
			return nil, Usagef("unknown flag %s (%s)", spelled, see)
		}
		typed[name] = spelled
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if hasValue {
				if _, err := strconv.ParseBool(value); err != nil {
					return nil, Usagef("invalid value %q for %s: want true or false (%s)", value, spelled, see)
				}
			}
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, Usagef("%s needs a value (%s)", spelled, see)
			}
			i++
			value = args[i]
		}
		if g, ok := f.Value.(flag.Getter); ok {
			if _, isInt := g.Get().(int); isInt {
				if _, err := strconv.Atoi(strings.TrimSpace(value)); err != nil {
					return nil, Usagef("invalid value %q for %s: want an integer (%s)", value, spelled, see)
				}
			}
		}
	}
	return typed, nil
}

// invalidf is a [UsageError] for a well-formed value out of its range; like
// a failed [domain.Limits.Validate], it wraps [domain.ErrInvalidArgument].
func invalidf(format string, args ...any) *UsageError {
	de := domain.Errorf(domain.ErrInvalidArgument, format, args...)
	return &UsageError{msg: de.Message, err: de}
}

// spellSources names every numeric setting given on the command line as the
// user typed its flag.
func (s *settings) spellSources(names *flagNames) {
	var l domain.Limits
	vs := []*rawValue{&s.queryTimeout, &s.http.maxSessions, &s.http.sessionIdle, &s.confirm.wait}
	for _, f := range s.ints(&l) {
		vs = append(vs, f.v)
	}
	for _, v := range vs {
		if t, ok := names.typed[v.flag]; ok && v.source == "--"+v.flag {
			v.source = t
		}
	}
}

// checkRanges refuses a well-formed value out of its range, naming the
// setting as given; [domain.Limits.Validate] stays as the backstop.
func (s *settings) checkRanges(l domain.Limits, names *flagNames) error {
	if s.queryTimeout.source != "" && l.QueryTimeout <= 0 {
		return invalidf("invalid value %q for %s: want a positive number of seconds", s.queryTimeout.text, s.queryTimeout.source)
	}
	for _, f := range s.ints(&l) {
		switch {
		case f.v.source == "":
		case f.dst == &l.Snapshots && *f.dst < 0:
			return invalidf("invalid value %q for %s: want 0 (no snapshots) or more", f.v.text, f.v.source)
		case f.dst != &l.Snapshots && *f.dst <= 0:
			return invalidf("invalid value %q for %s: want a positive integer", f.v.text, f.v.source)
		}
	}
	if l.DefaultLimit > l.MaxRows {
		return invalidf("%s (%d) cannot exceed %s (%d): raise %s or lower %s",
			names.of("default-limit"), l.DefaultLimit, names.of("max-rows"), l.MaxRows, names.of("max-rows"), names.of("default-limit"))
	}
	return nil
}
