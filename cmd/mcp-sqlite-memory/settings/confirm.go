package settings

import (
	"flag"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The confirmation settings (docs/decisions.md#confirmation).
const (
	envConfirm         = "MCP_SQLITE_CONFIRM"
	envConfirmFallback = "MCP_SQLITE_CONFIRM_FALLBACK"
	envConfirmWait     = "MCP_SQLITE_CONFIRM_WAIT"
)

// confirmSettings holds --confirm, --confirm-fallback and --confirm-wait
// until they are checked.
type confirmSettings struct {
	mode, fallback string
	wait           rawValue
}

// addConfirmFlags registers the confirmation flags with their variables
// as defaults.
func addConfirmFlags(fs *flag.FlagSet, c *confirmSettings, getenv func(string) string) {
	fs.StringVar(&c.mode, "confirm", getenv(envConfirm), "")
	fs.StringVar(&c.fallback, "confirm-fallback", getenv(envConfirmFallback), "")
	c.wait.flag = "confirm-wait"
	if t := getenv(envConfirmWait); t != "" {
		c.wait.text, c.wait.source = t, envConfirmWait
	}
	fs.Var(&c.wait, "confirm-wait", "")
}

// apply checks the confirmation settings into cfg, naming each as the user
// gave it.
func (c *confirmSettings) apply(cfg *Config, names *flagNames) error {
	var err error
	if cfg.Confirm.Mode, err = domain.ParseConfirmMode(c.mode); err != nil {
		return Usagef("invalid value for %s: %v", names.of("confirm"), err)
	}
	if cfg.Confirm.Fallback, err = domain.ParseConfirmFallback(c.fallback); err != nil {
		return Usagef("invalid value for %s: %v", names.of("confirm-fallback"), err)
	}
	if c.wait.source != "" { // unset: the zero value means the default

		d, err := parseSeconds(&c.wait)
		if err != nil {
			return err
		}
		if d < domain.MinConfirmWait || d > domain.MaxConfirmWait {
			return Usagef("invalid value %q for %s: want %s to %s seconds", strings.TrimSpace(c.wait.text), c.wait.source,
				domain.FormatSeconds(domain.MinConfirmWait), domain.FormatSeconds(domain.MaxConfirmWait))
		}
		cfg.Confirm.Wait = d
	}
	return nil
}

// confirmUsage is the --help text of the confirmation settings.
func confirmUsage() string {
	return `
Asking a person before destructive SQL (README "Add it to your agent"):

  --confirm MODE            destructive (default): destructive_query asks the
                            person, through the client (MCP elicitation), with
                            what the statement would do, measured in a rolled-back
                            trial run; writes: also write_query updates and
                            deletes and create_view replace=true; off: never ask
                            ` + envConfirm + `
  --confirm-fallback WHAT   when the client cannot ask (default snapshot):
                            snapshot runs it after the snapshot and says nobody
                            was asked; queue waits for ` + ProgName + ` pending,
                            then approve ID or deny ID, in a terminal; refuse
                            runs nothing
                            ` + envConfirmFallback + `
  --confirm-wait SECONDS    how long a call waits for the answer, ` + domain.FormatSeconds(domain.MinConfirmWait) + ` to ` + domain.FormatSeconds(domain.MaxConfirmWait) + `
                            (default ` + domain.FormatSeconds(domain.DefaultConfirmWait) + `); no answer is a no
                            ` + envConfirmWait + `
`
}
