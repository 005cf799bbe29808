package settings

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestRedactSecretsSetting: redaction is on unless the flag or its
// variable clearly turns it off; the flag wins over the variable.
func TestRedactSecretsSetting(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		wantKeep bool
	}{
		{name: "default on", args: nil},
		{name: "flag off", args: []string{"--redact-secrets=false"}, wantKeep: true},
		{name: "variable off", env: map[string]string{envRedactSecrets: "0"}, wantKeep: true},
		{name: "variable off spelled off", env: map[string]string{envRedactSecrets: "OFF"}, wantKeep: true},
		{name: "variable on", env: map[string]string{envRedactSecrets: "yes"}},
		{name: "flag wins over variable", args: []string{"--redact-secrets=true"}, env: map[string]string{envRedactSecrets: "0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig(append([]string{"--db", "/d.db"}, tc.args...), envOf(tc.env))
			require.NoError(t, err)
			assert.Equal(t, tc.wantKeep, cfg.KeepSecrets)
		})
	}
}

// TestChainKeyFileSetting: the key file is read once at startup; a short
// key or one other users may read is refused with what to do.
func TestChainKeyFileSetting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, mode))
		require.NoError(t, os.Chmod(p, mode))
		return p
	}
	good := write("good", bytes.Repeat([]byte{7}, 32), 0o600)
	short := write("short", bytes.Repeat([]byte{7}, 31), 0o600)
	open := write("open", bytes.Repeat([]byte{7}, 32), 0o644)

	cfg, err := parseConfig([]string{"--db", "/d.db", "--chain-key-file", good}, envOf(nil))
	require.NoError(t, err)
	want, err := domain.NewChainKey(bytes.Repeat([]byte{7}, 32))
	require.NoError(t, err)
	require.NotNil(t, cfg.ChainKey)
	assert.Equal(t, want.ID(), cfg.ChainKey.ID())

	cfg, err = parseConfig([]string{"--db", "/d.db"}, envOf(map[string]string{envChainKeyFile: good}))
	require.NoError(t, err)
	assert.NotNil(t, cfg.ChainKey, "the variable works too")

	cfg, err = parseConfig([]string{"--db", "/d.db"}, envOf(nil))
	require.NoError(t, err)
	assert.Nil(t, cfg.ChainKey, "no key by default")

	for _, p := range []string{short, filepath.Join(dir, "missing"), dir} {
		_, err = parseConfig([]string{"--db", "/d.db", "--chain-key-file", p}, envOf(nil))
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, p)
	}
	if runtime.GOOS != "windows" {
		_, err = parseConfig([]string{"--db", "/d.db", "--chain-key-file", open}, envOf(nil))
		var ue *UsageError
		require.ErrorAs(t, err, &ue)
		assert.Contains(t, ue.msg, "chmod 600")
	}
}
