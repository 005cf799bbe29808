package settings

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestParseConfigPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want Config
	}{
		{
			name: "relative db is made absolute",
			args: []string{"--db", "memory.db"},
			want: Config{DBPath: mustAbs(t, "memory.db"), Limits: domain.DefaultLimits()},
		},
		{
			// Not cleaned by text: if x is a symbolic link, x/.. is the
			// folder above its target, as the system resolves it.
			name: "db path keeps .. for the system to resolve",
			args: []string{"--db", "/data/./x/../memory.db"},
			want: Config{DBPath: "/data/./x/../memory.db", Limits: domain.DefaultLimits()},
		},
		{
			name: "tilde in db flag",
			args: []string{"--db", "~/memory.db"},
			want: Config{DBPath: "/home/tester/memory.db", Limits: domain.DefaultLimits()},
		},
		{
			name: "tilde in db variable",
			env:  map[string]string{EnvDB: "~/notes/memory.db"},
			want: Config{DBPath: "/home/tester/notes/memory.db", Limits: domain.DefaultLimits()},
		},
		{
			name: "bare tilde",
			args: []string{"--db", "/d.db", "--snapshot-dir", "~"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), SnapshotDir: "/home/tester"},
		},
		{
			name: "home with trailing slash",
			args: []string{"--db", "~/memory.db"},
			env:  map[string]string{"HOME": "/home/slash/"},
			want: Config{DBPath: "/home/slash/memory.db", Limits: domain.DefaultLimits()},
		},
		{
			name: "unknown user is left alone",
			args: []string{"--db", "/d.db", "--snapshot-dir", "~no-such-user-here/snaps"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), SnapshotDir: "~no-such-user-here/snaps"},
		},
		{
			name: "snapshot dir gets tilde expanded",
			args: []string{"--db", "/d.db", "--snapshot-dir", "~/snaps"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), SnapshotDir: "/home/tester/snaps"},
		},
		{
			name: "snapshot dir is not made absolute",
			args: []string{"--db", "/d.db", "--snapshot-dir", "snaps"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), SnapshotDir: "snaps"},
		},
		{
			name: "empty snapshot dir flag overrides the variable and means the default",
			args: []string{"--db", "/d.db", "--snapshot-dir", ""},
			env:  map[string]string{EnvSnapshotDir: "/elsewhere"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits()},
		},
		{
			name: "rg is kept as given",
			args: []string{"--db", "/d.db", "--rg", "bin/rg"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), RGPath: "bin/rg"},
		},
		{
			name: "audit db gets tilde expanded and made absolute",
			args: []string{"--db", "/d.db", "--read-only", "--audit-db", "~/audit.db"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), ReadOnly: true, AuditDB: "/home/tester/audit.db"},
		},
		{
			name: "relative audit db",
			args: []string{"--db", "/d.db", "--audit-db", "audit.db"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), AuditDB: mustAbs(t, "audit.db")},
		},
		{
			name: "audit db may equal db when not read-only",
			args: []string{"--db", "/d.db", "--audit-db", "/d.db"},
			want: Config{DBPath: "/d.db", Limits: domain.DefaultLimits(), AuditDB: "/d.db"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseConfig(tc.args, envOf(tc.env))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseConfigExpandsNamedUserHome(t *testing.T) {
	t.Parallel()
	me, err := user.Current()
	if err != nil || me.Username == "" || me.HomeDir == "" {
		require.Empty(t, os.Getenv("CI"), "CI runs as a user with a name and a home: %v", err)
		t.Skipf("no current user to look up: %v", err)
	}
	got, err := parseConfig([]string{"--db", "~" + me.Username + "/memory.db"}, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(me.HomeDir, "memory.db"), got.DBPath)
}
