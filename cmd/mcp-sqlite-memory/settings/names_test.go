package settings

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// badValues gives, for every setting that can be malformed, values that
// must be refused. A new flag must be added here or to noBadValue.
var badValues = map[string][]string{
	"query-timeout": {"soon", "0", "-1", "NaN"}, "default-limit": {"x", "0", "-3"},
	"max-rows": {"x", "0", "1.5"}, "max-result-bytes": {"x", "0"}, "max-cell-chars": {"x", "0"},
	"max-update-rows": {"x", "0"}, "search-candidates": {"x", "0"}, "snapshots": {"x", "-1"},
	"max-request-bytes": {"x", "0"}, "max-concurrent-calls": {"x", "0"},
	"max-sqlite-heap-bytes": {"x", "0"}, "max-concurrent-searches": {"x", "0"},
	"max-search-value-bytes": {"x", "0"}, "max-sessions": {"x", "0"},
	"session-idle-timeout": {"x", "0"}, "http": {"nohostport"},
	"auth-token-file": {"/nonexistent/edges/token"}, "read-only": {"maybe"}, "redact-secrets": {"maybe"}, "chain-key-file": {"/nonexistent/edges/key"},
	"replicate": {"ftp://host/x", "file://"}, "replicate-sync-interval": {"soon", "1ms"},
	"confirm": {"always", "yes"}, "confirm-fallback": {"ask", "allow"}, "confirm-wait": {"soon", "0", "1", "100000"},
	"oauth-issuer":   {"http://auth.example.com", "ftp://auth.example.com", "auth.example.com"},
	"oauth-audience": {"db", "https://db.example.com/mcp#x"},
}

// noBadValue are flags with no malformed value: any path or list is
// accepted here (a wrong path is reported when it is used), and the
// remaining booleans take flag's own spellings (checked separately).
var noBadValue = map[string]bool{
	"db": true, "audit-db": true, "snapshot-dir": true, "rg": true, "allowed-hosts": true,
	"verbose": true, "v": true, "repair-server-objects": true, "structured": true, "version": true, "help": true, "h": true,
}

// TestEveryArgumentErrorNamesTheFlagAsTyped: whatever the setting and
// whatever is wrong with it, the one line names it exactly as the user gave
// it: --max-rows, -max-rows or MCP_SQLITE_MAX_ROWS, never another spelling
// and never the internal max_rows.
func TestEveryArgumentErrorNamesTheFlagAsTyped(t *testing.T) {
	t.Parallel()
	var s settings
	fs := newFlagSet(&s, func(string) string { return "" })
	fs.VisitAll(func(f *flag.Flag) {
		_, bad := badValues[f.Name]
		assert.True(t, bad || noBadValue[f.Name], "flag --%s has no bad values in this test", f.Name)
		if !noBadValue[f.Name] || f.Name == "verbose" || f.Name == "repair-server-objects" || f.Name == "structured" {
			if f.Name != "version" && f.Name != "help" && f.Name != "h" && f.Name != "v" {
				assert.NotEmpty(t, flagEnvs[f.Name], "flag --%s has no environment variable in flagEnvs", f.Name)
			}
		}
	})
	base := []string{"--db", "/d.db", "--http", "127.0.0.1:9"}
	for name, values := range badValues {
		for _, value := range values {
			cases := map[string]struct {
				args []string
				env  map[string]string
			}{
				"--" + name: {args: append(append([]string{}, base...), "--"+name+"="+value)},
				"-" + name:  {args: append(append([]string{}, base...), "-"+name+"="+value)},
			}
			if name != "http" { // --http in base would win over the variable
				cases[flagEnvs[name]] = struct {
					args []string
					env  map[string]string
				}{args: base, env: map[string]string{flagEnvs[name]: value}}
			}
			for typed, c := range cases {
				t.Run(typed+"="+value, func(t *testing.T) {
					t.Parallel()
					args := c.args
					if name == "http" {
						args = append([]string{"--db", "/d.db"}, args[4:]...)
					}
					_, err := parseConfig(args, envOf(c.env))
					require.Error(t, err)
					msg := err.Error()
					assert.Contains(t, msg, typed)
					for _, other := range []string{"--" + name, flagEnvs[name]} {
						if other != typed && !strings.HasPrefix(other, typed) {
							assert.NotContains(t, msg, other, "another spelling")
						}
					}
					if typed == "-"+name {
						assert.NotContains(t, msg, "--"+name, "typed with one dash")
					}
					if strings.Contains(name, "-") {
						assert.NotContains(t, msg, strings.ReplaceAll(name, "-", "_"), "the internal name")
					}
					assert.NotContains(t, msg, "\n")
				})
			}
		}
	}
	// A flag that does not exist, and one missing its value, are named as
	// typed too; so is a bad value of a subcommand's own flag.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"-bogus"}, "unknown flag -bogus"},
		{[]string{"--db", "/d.db", "--max-rows"}, "--max-rows needs a value"},
		{[]string{"--db", "/d.db", "-max-rows"}, "-max-rows needs a value"},
		{[]string{"--db", "/d.db", "-read-only=perhaps"}, `"perhaps" for -read-only`},
		{[]string{"log", "--db", "/d.db", "-limit", "ten"}, `"ten" for -limit`},
		{[]string{"log", "--db", "/d.db", "--limit=ten"}, `"ten" for --limit`},
	} {
		_, err := parseConfig(c.args, envOf(nil))
		require.Error(t, err, c.args)
		assert.Contains(t, err.Error(), c.want, c.args)
	}
}

// TestIgnoredSettingsAreWarnedAbout: a setting that would do nothing gets
// one warning line naming it as given.
func TestIgnoredSettingsAreWarnedAbout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		env  map[string]string
		want []string
	}{
		{[]string{"--db", "/d.db"}, nil, nil},
		{[]string{"--db", "/d.db", "--rg", filepath.Join(dir, "no-rg")}, nil, []string{"--rg " + filepath.Join(dir, "no-rg") + " is not an executable"}},
		{[]string{"--db", "/d.db"}, map[string]string{envRG: filepath.Join(dir, "no-rg")}, []string{envRG + " " + filepath.Join(dir, "no-rg")}},
		{[]string{"--db", "/d.db", "-audit-db", "/a.db"}, nil, []string{"-audit-db is ignored without --read-only"}},
		{[]string{"--db", "/d.db", "--read-only", "-audit-db", "/a.db"}, nil, nil},
		{[]string{"--db", "/d.db", "--allowed-hosts", "x", "-max-sessions", "3"}, nil,
			[]string{"--allowed-hosts is ignored without --http", "-max-sessions is ignored without --http"}},
		{[]string{"--db", "/d.db"}, map[string]string{envSessionIdle: "5", EnvAuthToken: "0123456789abcdef0123"},
			[]string{envSessionIdle + " is ignored without --http", EnvAuthToken + " is ignored without --http"}},
		{[]string{"--db", "/d.db", "--http", "127.0.0.1:9", "--allowed-hosts", "x"}, nil, nil},
		{[]string{"--db", "/d.db", "--read-only", "--confirm", "writes"}, nil, []string{"--confirm is ignored with --read-only"}},
		{[]string{"--db", "/d.db", "--confirm", "off", "-confirm-fallback", "queue"}, map[string]string{envConfirmWait: "60"},
			[]string{"-confirm-fallback is ignored with --confirm off", envConfirmWait + " is ignored with --confirm off"}},
		{[]string{"--db", "/d.db", "--confirm", "writes", "--confirm-fallback", "refuse", "--confirm-wait", "60"}, nil, nil},
		{[]string{"--db", "/d.db", "--oauth-issuer", "https://auth.example.com", "--oauth-audience", "https://db.example.com/mcp"}, nil,
			[]string{"--oauth-issuer is ignored without --http", "--oauth-audience is ignored without --http"}},
	} {
		_, notes, err := parseConfigNotes(c.args, envOf(c.env))
		require.NoError(t, err, c.args)
		require.Len(t, notes.Warnings, len(c.want), "%v: %q", c.args, notes.Warnings)
		for i, w := range c.want {
			assert.Contains(t, notes.Warnings[i], w)
			assert.NotContains(t, notes.Warnings[i], "\n")
		}
	}
}
