//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Nobody is the uid and gid of the unprivileged user the binary runs as
// when the tests run as root.
const Nobody = 65534

// Unprivileged makes cmd run as a user the permission bits bind. They do
// not bind root, so when the tests run as root (containers, CI) cmd runs as
// user nobody, and the binary and the two folders above dir are made
// reachable for it (t.TempDir and the build folder are private to root);
// otherwise cmd runs as the test's own user. It reports whether it switched
// to nobody.
func Unprivileged(t testing.TB, cmd *exec.Cmd, dir string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	for _, d := range []string{filepath.Dir(cmd.Path), filepath.Dir(filepath.Dir(dir)), filepath.Dir(dir)} {
		require.NoError(t, os.Chmod(d, 0o755))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody, Groups: []uint32{}}}
	return true
}
