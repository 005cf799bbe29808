//go:build unix

package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// childEnvBase is every child's allow-list, as
// docs/decisions.md#child-processes lists it; the shell of the fake children adds PWD, SHLVL and _ itself.
var childEnvBase = []string{"PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TMP", "TEMP", "TZ", "LANG", "LC_*",
	"SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
	"PWD", "SHLVL", "_"}

// childEnvCanary is a secret of the kind a developer's shell holds; no
// child may see it.
const childEnvCanary = "GITHUB_TOKEN=ghp_canary_never_inherited"

// fakeChild writes an executable shell script that records its environment
// in <script>.env, then runs body; it returns the script's path.
func fakeChild(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\nenv > \"$0.env.tmp\" && mv \"$0.env.tmp\" \"$0.env\"\n"+body), 0o755))
	return path
}

// childEnvOf waits for the environment a fake child recorded.
func childEnvOf(t *testing.T, script string) []string {
	t.Helper()
	var data []byte
	require.Eventually(t, func() bool {
		var err error
		data, err = os.ReadFile(script + ".env")
		return err == nil
	}, slack.Of(10*time.Second), 10*time.Millisecond, "the child never ran")
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// assertEnvAllowed checks that every variable of env is named in allowed
// (a name ending in * is a prefix).
func assertEnvAllowed(t *testing.T, child string, env []string, allowed []string) {
	t.Helper()
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		ok := slices.ContainsFunc(allowed, func(a string) bool {
			if p, pre := strings.CutSuffix(a, "*"); pre {
				return strings.HasPrefix(strings.ToUpper(name), p)
			}
			return strings.EqualFold(name, a)
		})
		assert.True(t, ok, "%s inherited %s, which is on no allow-list", child, name)
	}
}

// TestChildrenGetOnlyTheirAllowList starts the server over HTTP with a
// bearer token in its environment and --replicate, with a fake
// replication helper (MCP_SQLITE_REPLICATOR) and a fake ripgrep (--rg)
// that record their environment: neither holds the token, the canary
// secret, or any variable outside its allow-list; the sidecar still gets
// its S3 credentials and the replica URL.
func TestChildrenGetOnlyTheirAllowList(t *testing.T) {
	t.Parallel()
	sidecar := fakeChild(t, "fake-replicate", "echo '{\"ready\": true}'\ncat >/dev/null\necho '{\"done\": true}'\n")
	rg := fakeChild(t, "rg", "cat >/dev/null\nexit 1\n") // 1: no match
	token := "tok-" + strings.Repeat("s", 40)
	replica := replFileURL(filepath.Join(t.TempDir(), "replica"))
	s := httpStart(t, newDB(t), []string{"MCP_SQLITE_AUTH_TOKEN=" + token, "MCP_SQLITE_REPLICATOR=" + sidecar,
		childEnvCanary, "AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "LITESTREAM_SECRET_ACCESS_KEY=ls-secret"},
		"--replicate", replica, "--rg", rg)

	env := childEnvOf(t, sidecar)
	assert.NotContains(t, strings.Join(env, "\n"), token, "the bearer token reached the replication helper")
	assertEnvAllowed(t, "the replication helper", env, append([]string{"MCP_SQLITE_REPLICATE",
		"AWS_*", "LITESTREAM_*", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
		"GOMAXPROCS", "GOMEMLIMIT", "GOGC", "GODEBUG", "GOTRACEBACK", "GORACE", "GOCOVERDIR"}, childEnvBase...))
	assert.Contains(t, env, "MCP_SQLITE_REPLICATE="+replica, "the replica URL is handed over")
	assert.Contains(t, env, "AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "the S3 credentials pass")
	assert.Contains(t, env, "LITESTREAM_SECRET_ACCESS_KEY=ls-secret")

	cs := httpConnect(t, s, token)
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes(body TEXT)"})
	mustCall(t, cs, "search_text", map[string]any{"table": "notes", "pattern": "x"})
	env = childEnvOf(t, rg)
	assert.NotContains(t, strings.Join(env, "\n"), token, "the bearer token reached ripgrep")
	assertEnvAllowed(t, "ripgrep", env, childEnvBase)
}

// TestRipgrepGetsOnlyItsAllowList: the stdio server's ripgrep sees no
// secret of the server's environment either.
func TestRipgrepGetsOnlyItsAllowList(t *testing.T) {
	t.Parallel()
	rg := fakeChild(t, "rg", "cat >/dev/null\nexit 1\n")
	cmd := e2e.Command(bin, "--db", newDB(t), "--rg", rg)
	cmd.Env = append(cmd.Env, childEnvCanary, "AWS_SECRET_ACCESS_KEY=aws-secret")
	cs := e2e.Start(t, cmd).Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes(body TEXT)"})
	mustCall(t, cs, "search_text", map[string]any{"table": "notes", "pattern": "x"})
	env := childEnvOf(t, rg)
	assertEnvAllowed(t, "ripgrep", env, childEnvBase)
}
