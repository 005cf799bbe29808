package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
