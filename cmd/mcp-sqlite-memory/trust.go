package main

import (
	"flag"
	"strings"
)

// The settings of what memory keeps out (docs/decisions.md#secret-redaction).
const (
	envRedactSecrets = "MCP_SQLITE_REDACT_SECRETS"
)

// trustSettings are those settings as given.
type trustSettings struct {
	redact bool
}

// addTrustFlags registers --redact-secrets, on unless its variable says
// off.
func addTrustFlags(fs *flag.FlagSet, t *trustSettings, getenv func(string) string) {
	on, _ := redactEnv(getenv(envRedactSecrets))
	fs.BoolVar(&t.redact, "redact-secrets", on, "")
}

// redactEnv reads MCP_SQLITE_REDACT_SECRETS strictly, like
// MCP_SQLITE_READ_ONLY: a protection is never turned off by a spelling
// that was meant to keep it on. Unset is on.
func redactEnv(s string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "1", "true", "yes", "on":
		return true, true
	case "0", "false", "no", "off":
		return false, true
	}
	return true, false
}

// apply checks the settings into cfg.
func (t *trustSettings) apply(cfg *Config, getenv func(string) string) error {
	if v := getenv(envRedactSecrets); v != "" {
		if _, ok := redactEnv(v); !ok {
			return usagef("invalid value %q for %s: want 0, false, no or off (store secrets as given), or 1, true, yes or on", v, envRedactSecrets)
		}
	}
	cfg.KeepSecrets = !t.redact
	return nil
}

// trustUsage is the --help text of these settings.
func trustUsage() string {
	return `
Memory:

  --redact-secrets          replace secret-shaped text (private keys, cloud and API
                            keys, tokens, passwords in URLs and assignments) in
                            events and checkpoints with [redacted: KIND] before
                            it is hashed; --redact-secrets=false stores it as given
                            (default true)
                            ` + envRedactSecrets + `=0
`
}
