package settings

import (
	"flag"
	"os"
	"runtime"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The settings of what memory keeps out and how it proves itself
// (docs/decisions.md#secret-redaction, docs/decisions.md#keyed-chain).
const (
	envRedactSecrets = "MCP_SQLITE_REDACT_SECRETS"
	envChainKeyFile  = "MCP_SQLITE_CHAIN_KEY_FILE"
)

// trustSettings are those settings as given.
type trustSettings struct {
	redact       bool
	chainKeyFile string
}

// addTrustFlags registers --redact-secrets (on unless its variable says
// off) and --chain-key-file.
func addTrustFlags(fs *flag.FlagSet, t *trustSettings, getenv func(string) string) {
	on, _ := redactEnv(getenv(envRedactSecrets))
	fs.BoolVar(&t.redact, "redact-secrets", on, "")
	fs.StringVar(&t.chainKeyFile, "chain-key-file", getenv(envChainKeyFile), "")
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

// apply checks the settings into cfg. The chain key file is read here,
// once, and refused when it is short or others may read it.
func (t *trustSettings) apply(cfg *Config, names *flagNames, getenv func(string) string, home string) error {
	if v := getenv(envRedactSecrets); v != "" {
		if _, ok := redactEnv(v); !ok {
			return Usagef("invalid value %q for %s: want 0, false, no or off (store secrets as given), or 1, true, yes or on", v, envRedactSecrets)
		}
	}
	cfg.KeepSecrets = !t.redact
	if t.chainKeyFile == "" {
		return nil
	}
	setting := names.of("chain-key-file")
	path := ExpandHome(t.chainKeyFile, home)
	info, err := os.Stat(path)
	if err != nil {
		return Usagef("%s: %v (make a key with: head -c 32 /dev/urandom > KEYFILE; chmod 600 KEYFILE)", setting, err)
	}
	if !info.Mode().IsRegular() {
		return Usagef("%s: %s is not a regular file", setting, path)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return Usagef("%s: %s may be read by other users (mode %v); a key others can read proves nothing: chmod 600 it", setting, path, info.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Usagef("%s: %v", setting, err)
	}
	if cfg.ChainKey, err = domain.NewChainKey(data); err != nil {
		return Usagef("%s: %v", setting, err)
	}
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
  --chain-key-file PATH     sign the memory chain's head with this key (32+ random
                            bytes, readable by its owner only); verify_chain then
                            reports a chain rewritten without the key as broken
                            ` + envChainKeyFile + `
`
}
