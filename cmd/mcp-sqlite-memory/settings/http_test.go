package settings

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseHTTPSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(good, []byte("  0123456789abcdef0123\n"), 0o600))
	short := filepath.Join(dir, "short")
	require.NoError(t, os.WriteFile(short, []byte("tiny"), 0o600))

	cfg, err := parseConfig([]string{"--db", "/d.db", "--http", "0.0.0.0:8080", "--auth-token-file", good,
		"--allowed-hosts", "a.test, b.test,", "--max-sessions", "3", "--session-idle-timeout", "90"}, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, HTTPConfig{Addr: "0.0.0.0:8080", Token: "0123456789abcdef0123", TokenSource: "--auth-token-file",
		AllowedHosts: []string{"a.test", "b.test"}, MaxSessions: 3, SessionIdle: 90 * time.Second}, cfg.HTTP)

	cfg, err = parseConfig([]string{"--db", "/d.db"}, envOf(map[string]string{envHTTP: "127.0.0.1:9", EnvAuthToken: "0123456789abcdef-env"}))
	require.NoError(t, err)
	assert.Equal(t, "0123456789abcdef-env", cfg.HTTP.Token)
	assert.Equal(t, defaultMaxSessions, cfg.HTTP.MaxSessions)

	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--http", "0.0.0.0:8080"}, nil, "--auth-token-file"},
		{[]string{"--http", ":8080"}, nil, "MCP_SQLITE_AUTH_TOKEN"},
		{[]string{"--http", "[::]:8080"}, nil, "needs a bearer token"},
		{[]string{"--http", "8080"}, nil, "want HOST:PORT"},
		{[]string{"--http", "127.0.0.1:0", "--auth-token-file", filepath.Join(dir, "missing")}, nil, "--auth-token-file: cannot read"},
		{[]string{"--http", "127.0.0.1:0", "--auth-token-file", short}, nil, "shorter than 16"},
		{[]string{"--http", "127.0.0.1:0"}, map[string]string{EnvAuthToken: "tiny"}, "MCP_SQLITE_AUTH_TOKEN is shorter"},
		{[]string{"--http", "127.0.0.1:0", "--max-sessions", "0"}, nil, "--max-sessions"},
		{[]string{"--http", "127.0.0.1:0", "--session-idle-timeout", "-1"}, nil, "--session-idle-timeout"},
		{[]string{"--http", "127.0.0.1:0"}, map[string]string{envMaxSessions: "x"}, envMaxSessions},
	} {
		_, err := parseConfig(append([]string{"--db", "/d.db"}, c.args...), envOf(c.env))
		require.Error(t, err, "%v", c.args)
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, "exit status 2: %v", c.args)
		assert.Contains(t, err.Error(), c.want, "%v", c.args)
		assert.NotContains(t, err.Error(), "tiny", "the token is never echoed")
	}
}

func TestUsageTextDocumentsHTTPVariables(t *testing.T) {
	t.Parallel()
	text := Usage()
	for _, env := range []string{envHTTP, envAuthTokenFile, EnvAuthToken, envAllowedHosts, envMaxSessions, envSessionIdle} {
		assert.Contains(t, text, env)
	}
	assert.Contains(t, text, "(default 16)")
	assert.Contains(t, text, "(default 1800)")
}

// A token file other users can read gets a warning at start naming the
// file and the fix; a private one gets none, and stdio ignores the file.
func TestTokenFileReadableByOthersIsWarned(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("permission bits do not say who can read a file on Windows")
	}
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(token, []byte("0123456789abcdef0123\n"), 0o600))
	warned := func(mode os.FileMode, args ...string) []string {
		require.NoError(t, os.Chmod(token, mode))
		_, notes, err := parseConfigNotes(append([]string{"--db", "/d.db", "--auth-token-file", token}, args...), envOf(nil))
		require.NoError(t, err)
		var out []string
		for _, w := range notes.Warnings {
			if strings.Contains(w, "readable by other users") {
				out = append(out, w)
			}
		}
		return out
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o666} {
		got := warned(mode, "--http", "127.0.0.1:0")
		require.Len(t, got, 1, "mode %04o", mode)
		assert.Contains(t, got[0], "--auth-token-file "+token, "names the file")
		assert.Contains(t, got[0], "chmod 600 "+token, "and the fix")
		assert.NotContains(t, got[0], "0123456789abcdef0123", "never the token")
	}
	for _, mode := range []os.FileMode{0o600, 0o400, 0o700} {
		assert.Empty(t, warned(mode, "--http", "127.0.0.1:0"), "mode %04o", mode)
	}
	assert.Empty(t, warned(0o644), "stdio does not use the token file")
}

// --oauth-issuer and --oauth-audience go together, never with a static
// token, and stand in for it on a non-loopback address.
func TestParseOAuthSettings(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"--db", "/d.db", "--http", "0.0.0.0:8080", "--oauth-issuer", "https://auth.example.com",
		"--oauth-audience", "https://db.example.com/mcp"}, envOf(nil))
	require.NoError(t, err)
	require.NotNil(t, cfg.HTTP.OAuth)
	assert.Equal(t, "https://auth.example.com", cfg.HTTP.OAuth.Issuer)
	assert.Equal(t, "https://db.example.com/mcp", cfg.HTTP.OAuth.Resource)
	assert.Empty(t, cfg.HTTP.Token)

	cfg, err = parseConfig([]string{"--db", "/d.db", "--http", "127.0.0.1:0"}, envOf(map[string]string{
		envOAuthIssuer: "http://127.0.0.1:9000", envOAuthAudience: "http://127.0.0.1:8080/mcp"}))
	require.NoError(t, err)
	require.NotNil(t, cfg.HTTP.OAuth, "http:// on loopback")

	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--oauth-issuer", "https://auth.example.com"}, nil, "--oauth-audience go together"},
		{[]string{"--oauth-audience", "https://db.example.com/mcp"}, nil, "--oauth-issuer and --oauth-audience go together"},
		{[]string{"--oauth-issuer", "http://auth.example.com", "--oauth-audience", "https://db.example.com/mcp"}, nil, "not a loopback address"},
		{[]string{"--oauth-issuer", "https://auth.example.com", "--oauth-audience", "https://db.example.com/mcp"},
			map[string]string{EnvAuthToken: "0123456789abcdef-env"}, "cannot be used together"},
	} {
		_, err := parseConfig(append([]string{"--db", "/d.db", "--http", "0.0.0.0:8080"}, c.args...), envOf(c.env))
		require.Error(t, err, "%v", c.args)
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, "exit status 2: %v", c.args)
		assert.Contains(t, err.Error(), c.want, "%v", c.args)
	}
}
