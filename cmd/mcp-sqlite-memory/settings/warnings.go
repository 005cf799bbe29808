package settings

import (
	"os/exec"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// ignoredSettings lists, one line each, the settings that were given but
// would be silently without effect: the user meant something by them.
func ignoredSettings(cfg Config, names *flagNames, getenv func(string) string) []string {
	var out []string
	if cfg.RGPath != "" {
		if _, err := exec.LookPath(cfg.RGPath); err != nil {
			out = append(out, "warning: "+names.of("rg")+" "+cfg.RGPath+" is not an executable ripgrep; search_text uses the in-process regexp2 engine (fix the path, or drop the setting)")
		}
	}
	if cfg.AuditDB != "" && !cfg.ReadOnly {
		out = append(out, "warning: "+names.of("audit-db")+" is ignored without --read-only: the audit log goes to the database's own query_log table")
	}
	if cfg.HTTP.tokenWarning != "" {
		out = append(out, cfg.HTTP.tokenWarning)
	}
	if cfg.HTTP.Addr == "" {
		for _, f := range []string{"auth-token-file", "allowed-hosts", "max-sessions", "session-idle-timeout", "oauth-issuer", "oauth-audience"} {
			if names.given(f) {
				out = append(out, "warning: "+names.of(f)+" is ignored without --http: the server speaks MCP on stdio")
			}
		}
		if getenv(EnvAuthToken) != "" {
			out = append(out, "warning: "+EnvAuthToken+" is ignored without --http: the server speaks MCP on stdio")
		}
	}
	if cfg.Replicate == "" && names.given("replicate-sync-interval") {
		out = append(out, "warning: "+names.of("replicate-sync-interval")+" is ignored without --replicate: nothing is replicated")
	}
	return append(out, ignoredConfirmSettings(cfg, names)...)
}

// ignoredConfirmSettings are the confirmation settings that cannot apply:
// read-only mode offers no tool that asks, and --confirm off never asks.
func ignoredConfirmSettings(cfg Config, names *flagNames) []string {
	var out []string
	for _, f := range []string{"confirm", "confirm-fallback", "confirm-wait"} {
		switch {
		case !names.given(f) || cfg.Command != "":
		case cfg.ReadOnly:
			out = append(out, "warning: "+names.of(f)+" is ignored with --read-only: no tool that changes anything is offered")
		case f != "confirm" && cfg.Confirm.Mode == domain.ConfirmOff:
			out = append(out, "warning: "+names.of(f)+" is ignored with --confirm off: nobody is asked")
		}
	}
	return out
}
